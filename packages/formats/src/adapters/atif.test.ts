import { fileURLToPath } from 'node:url';
import { countTransitions, Trajectory, trajectoryLinks } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import type { RecordContext } from '../adapter';
import { atifAdapter } from './atif';
import { readFile } from './testing/load-records';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

async function read(name: string): Promise<Trajectory[]> {
  const result = await readFile(FIXTURES + name);
  expect(result.format).toBe('atif');
  expect(result.problems).toEqual([]);
  for (const trajectory of result.trajectories)
    expect(Trajectory.safeParse(trajectory).success).toBe(true);
  return result.trajectories;
}

const context: RecordContext = {
  file: 'inline.json',
  line: 1,
  byteOffset: 0,
  ordinal: 0,
  key: null,
  header: {},
  notes: [],
};

describe('ATIF written by Terminus-2 with raw content', () => {
  it('reads the keystrokes of each JSON reply, answered by the terminal capture', async () => {
    const [trajectory] = await read('atif-terminus2-raw.trajectory.json');
    if (trajectory === undefined) throw new Error('no trajectory');
    expect(trajectory.domain).toBe('terminal');
    expect(trajectory.steps.map((step) => step.action)).toEqual([
      {
        type: 'message',
        text: 'Count the lines of /app/data.csv without the header and write the number to /app/count.txt.\n\nCurrent terminal state:\nroot@box:/app# ',
      },
      { type: 'keystrokes', keys: 'ls -la\nhead -3 data.csv\n' },
      // This reply came wrapped in a ```json fence.
      { type: 'keystrokes', keys: 'tail -n +2 data.csv | wc -l > count.txt\n' },
      { type: 'message', text: 'Performed context summarization and handoff to continue task.' },
      { type: 'keystrokes', keys: 'cat count.txt\n' },
      expect.objectContaining({ type: 'message' }),
    ]);
    expect(trajectory.steps[4]?.observation).toEqual({
      kind: 'terminal',
      content: 'New Terminal Output:\n\nroot@box:/app# cat count.txt\n3\nroot@box:/app# ',
      callId: null,
    });
    expect(trajectory.steps[1]?.reasoning).toBe(
      'The shell is idle in /app.\n\nLook at the file first.',
    );
    expect(countTransitions(trajectory)).toBe(3);
    // The task_complete reply sends no keystrokes: its confirmation prompt answers no action.
    expect(trajectory.metadata.unansweredResults).toBe(1);
  });

  it('keeps the summarization subagent and the continuation file as links, not steps', async () => {
    const [trajectory] = await read('atif-terminus2-raw.trajectory.json');
    expect(trajectory === undefined ? [] : trajectoryLinks(trajectory.metadata)).toEqual([
      {
        kind: 'subagent',
        sessionId: 'count-lines__terminus2-0007-summarization-1-summary',
        path: 'trajectory.summarization-1-summary.json',
        stepIndex: 3,
      },
      { kind: 'continuation', sessionId: null, path: 'trajectory.cont-1.json', stepIndex: null },
    ]);
  });
});

describe('ATIF Terminus-2 replies in the XML parser format', () => {
  it('reads <keystrokes> of <commands> and the analysis and plan', () => {
    const [trajectory] = atifAdapter.convert(
      {
        schema_version: 'ATIF-v1.5',
        session_id: 'xml-1',
        agent: { name: 'terminus-2', version: '2.0.0', extra: { parser: 'xml' } },
        steps: [
          { step_id: 1, source: 'user', message: 'Print the date.' },
          {
            step_id: 2,
            source: 'agent',
            message:
              '<response>\n<analysis>Idle prompt.</analysis>\n<plan>Run date.</plan>\n<commands>\n<keystrokes duration="0.1">date -u\n</keystrokes>\n<keystrokes duration="0.1">echo ok\n</keystrokes>\n</commands>\n</response>',
            observation: {
              results: [{ content: '$ date -u\nTue Dec  1 10:00:00 UTC 2026\n$ echo ok\nok\n$ ' }],
            },
          },
        ],
      },
      context,
    );
    expect(trajectory?.steps[1]?.action).toEqual({
      type: 'keystrokes',
      keys: 'date -u\necho ok\n',
    });
    expect(trajectory?.steps[1]?.reasoning).toBe('Idle prompt.\n\nRun date.');
    expect(trajectory?.steps[1]?.observation?.kind).toBe('terminal');
    expect(trajectory?.domain).toBe('terminal');
  });
});

describe('ATIF results without call ids, names, duplicates', () => {
  it('pairs id-less results with their calls in order, also when they arrive in a later step', async () => {
    const [trajectory] = await read('atif-v1-0-no-call-ids.trajectory.json');
    if (trajectory === undefined) throw new Error('no trajectory');
    expect(trajectory.metadata.schemaVersion).toBe('1.0');
    expect(
      trajectory.steps.map((step) => [step.action.type, step.observation?.content ?? null]),
    ).toEqual([
      ['message', null],
      ['tool_call', '{"city": "Lisbon", "temp_c": 19}'],
      ['tool_call', '{"city": "Oslo", "temp_c": 4}'],
      ['tool_call', '{"city": "Oslo", "tomorrow_c": 6}'],
      ['message', null],
    ]);
    // Arguments given as a JSON string are parsed.
    expect(trajectory.steps[3]?.action).toEqual({
      type: 'tool_call',
      name: 'get_forecast',
      arguments: { city: 'Oslo', days: 1 },
      callId: 't3',
    });
    expect(countTransitions(trajectory)).toBe(3);
  });

  it('reads tool_calls[].name, drops repeated call and result records, links the subagent', async () => {
    const [trajectory] = await read('atif-name-duplicates.trajectory.json');
    if (trajectory === undefined) throw new Error('no trajectory');
    expect(trajectory.steps.map((step) => step.action.type)).toEqual([
      'message',
      'tool_call',
      'tool_call',
      'tool_call',
      'message',
    ]);
    expect(trajectory.steps[1]?.action).toEqual({
      type: 'tool_call',
      name: 'Grep',
      arguments: { pattern: 'MAX_RETRIES' },
      callId: 'toolu_1',
    });
    expect(trajectory.metadata.duplicateToolCalls).toBe(1);
    expect(trajectory.metadata.duplicateResults).toBe(1);
    // The delegated Task call is answered by a subagent run: a link, not a transition.
    expect(trajectory.steps[3]?.observation).toBeNull();
    expect(trajectoryLinks(trajectory.metadata)).toEqual([
      {
        kind: 'subagent',
        sessionId: 'repo-search-dup-02-sub-1',
        path: 'subagents/sub-1.json',
        stepIndex: 3,
      },
    ]);
    expect(countTransitions(trajectory)).toBe(2);
  });

  it('skips copied context of a continuation and imports embedded subagent runs linked', async () => {
    const [main, summary, ...rest] = await read('atif-v1-7-copied-context.trajectory.json');
    expect(rest).toEqual([]);
    if (main === undefined || summary === undefined) throw new Error('missing trajectories');
    expect(main.metadata.copiedContextSteps).toBe(2);
    expect(main.task).toBe('Make the test suite pass.');
    expect(main.steps.map((step) => step.action)).toEqual([
      { type: 'message', text: 'You are picking up work from a previous agent. Continue.' },
      { type: 'keystrokes', keys: 'pip install pyyaml && pytest -q\n' },
    ]);
    expect(countTransitions(main)).toBe(1);
    expect(summary.externalId).toBe('fix-test-cont-1-summary');
    expect(countTransitions(summary)).toBe(0);
    expect(trajectoryLinks(main.metadata)).toEqual([
      { kind: 'subagent', sessionId: 'fix-test-cont-1-summary', path: null, stepIndex: null },
    ]);
  });
});

describe('ATIF schema versions', () => {
  const versions = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7'];
  const written = versions.flatMap((version) => [version, `ATIF-v${version}`]);

  it.each(written)('reads version %s, detected from the head', (version) => {
    const document = {
      schema_version: version,
      session_id: `s-${version}`,
      agent: { name: 'a', version: '1' },
      steps: [
        { step_id: 1, source: 'user', message: 'list files' },
        {
          step_id: 2,
          source: 'agent',
          message: '',
          tool_calls: [{ tool_call_id: 'c1', function_name: 'ls', arguments: {} }],
          observation: { results: [{ source_call_id: 'c1', content: 'a.txt' }] },
        },
      ],
    };
    const head = JSON.stringify(document, null, 2);
    expect(atifAdapter.sniff({ fileName: 'trajectory.json', head })).toBe(true);
    const [trajectory] = atifAdapter.convert(document, context);
    expect(trajectory?.metadata.schemaVersion).toBe(version);
    expect(trajectory === undefined ? null : countTransitions(trajectory)).toBe(1);
  });

  it('rejects a schema_version that is not an ATIF version, naming the field', () => {
    expect(() =>
      atifAdapter.convert({ schema_version: 'v2-beta', steps: [] }, context),
    ).toThrowError('schema_version: "v2-beta" is not an ATIF version (ATIF-v1.x)');
  });
});
