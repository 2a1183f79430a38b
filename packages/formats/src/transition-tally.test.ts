import { fileURLToPath } from 'node:url';
import type { Trajectory } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import type { RecordContext } from './adapter';
import { atifAdapter, miniSweAgentAdapter } from './adapters';
import { readFile } from './adapters/testing/load-records';
import { TransitionTally } from './transition-tally';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const context: RecordContext = {
  file: 'f.json',
  line: 1,
  byteOffset: 0,
  ordinal: 0,
  key: null,
  header: {},
  notes: [],
};

function reasonFor(trajectories: Trajectory[], format: Trajectory['sourceFormat']): string | null {
  const tally = new TransitionTally();
  for (const trajectory of trajectories) tally.add(trajectory);
  return tally.zeroTransitionReason(format);
}

describe('why a recognized file gives 0 transitions', () => {
  it('says nothing for files with transitions', async () => {
    const { trajectories } = await readFile(`${FIXTURES}mini-swe-agent/github_issue.traj.json`);
    expect(reasonFor(trajectories, 'mini-swe-agent')).toBeNull();
  });

  it('a run of messages only (the summarizer embedded in an ATIF 1.7 file)', async () => {
    const { trajectories } = await readFile(`${FIXTURES}atif-v1-7-copied-context.trajectory.json`);
    const summary = trajectories.filter((t) => t.externalId === 'fix-test-cont-1-summary');
    expect(reasonFor(summary, 'atif')).toBe(
      'recognized as atif but yields 0 transitions: 1 trajectory holds only messages (2 messages): no tool call, command or keystrokes',
    );
  });

  it('actions whose output was never recorded', async () => {
    // The real mini-swe-agent file cut after its first command, before the environment answered.
    const { trajectories } = await readFile(`${FIXTURES}mini-swe-agent/github_issue.traj.json`);
    const record = trajectories[0]?.source.record;
    const messages = Array.isArray(record) ? record.slice(0, 3) : [];
    expect(messages).toHaveLength(3);
    expect(reasonFor(miniSweAgentAdapter.convert(messages, context), 'mini-swe-agent')).toBe(
      'recognized as mini-swe-agent but yields 0 transitions: none of 1 action has an observation',
    );
  });

  it('results that answer no action are named', () => {
    const trajectories = atifAdapter.convert(
      {
        schema_version: 'ATIF-v1.2',
        session_id: 's',
        steps: [
          { step_id: 1, source: 'user', message: 'go' },
          {
            step_id: 2,
            source: 'agent',
            message: 'I looked around.',
            observation: { results: [{ content: 'a.txt b.txt' }, { content: 'done' }] },
          },
        ],
      },
      context,
    );
    expect(reasonFor(trajectories, 'atif')).toBe(
      'recognized as atif but yields 0 transitions: 1 trajectory holds only messages (2 messages): no tool call, command or keystrokes; 2 results answer no action',
    );
  });
});
