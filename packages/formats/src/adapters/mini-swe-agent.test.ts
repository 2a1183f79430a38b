import { fileURLToPath } from 'node:url';
import { countTransitions, Trajectory } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import type { RecordContext } from '../adapter';
import type { ImportEvent } from '../read';
import { readTrajectories } from '../read-trajectories';
import { miniSweAgentAdapter } from './mini-swe-agent';
import { readFile } from './testing/load-records';

const FIXTURES = fileURLToPath(new URL('../../fixtures/mini-swe-agent/', import.meta.url));

async function read(name: string): Promise<Trajectory> {
  const result = await readFile(FIXTURES + name);
  expect(result.format).toBe('mini-swe-agent');
  expect(result.problems).toEqual([]);
  expect(result.trajectories).toHaveLength(1);
  const [trajectory] = result.trajectories;
  if (trajectory === undefined) throw new Error('no trajectory');
  expect(Trajectory.safeParse(trajectory).success).toBe(true);
  return trajectory;
}

const exitCodes = (trajectory: Trajectory) =>
  trajectory.steps.map((step) => step.metadata.exitCode ?? null);

describe('mini-swe-agent, real files from its test data (MIT)', () => {
  it('reads a bare message list with ```mswea_bash_command blocks and keeps every exit code', async () => {
    const trajectory = await read('github_issue.traj.json');
    expect(trajectory.externalId).toBe('github_issue');
    expect(trajectory.domain).toBe('swe');
    expect(trajectory.systemPrompt?.startsWith('You are a helpful assistant')).toBe(true);
    expect(trajectory.task?.startsWith('Please solve this issue: GitHub Issue: SyntaxError')).toBe(
      true,
    );
    expect(trajectory.steps).toHaveLength(11);
    expect(countTransitions(trajectory)).toBe(10);
    expect(exitCodes(trajectory)).toEqual([null, 1, 0, 0, 0, 0, 0, 0, 1, 0, null]);
    expect(trajectory.steps[1]?.action).toEqual({
      type: 'command',
      command:
        'cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py',
      interpreter: 'bash',
    });
    expect(trajectory.steps[1]?.observation).toEqual({
      kind: 'terminal',
      content:
        'cat: /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py: No such file or directory',
      callId: null,
    });
    expect(trajectory.steps[1]?.reasoning).toBe(
      "I'll help you solve this issue. Let me first examine the content of the file that's causing the syntax error.",
    );
    // The submitting command's output is the diff it printed (mini-swe-agent drops the marker line).
    expect(trajectory.steps[10]?.observation?.content.startsWith('diff --git a/tests/')).toBe(true);
  });

  it('reads ```bash blocks of the older default config', async () => {
    const trajectory = await read('local.traj.json');
    expect(trajectory.steps.map((step) => step.action)).toEqual([
      expect.objectContaining({ type: 'message' }),
      { type: 'command', command: "echo 'hello world'", interpreter: 'bash' },
      {
        type: 'command',
        command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT',
        interpreter: 'bash',
      },
    ]);
    expect(trajectory.steps[1]?.observation?.content).toBe('hello world');
    expect(exitCodes(trajectory)).toEqual([null, 0, null]);
    expect(countTransitions(trajectory)).toBe(2);
  });
});

describe('mini-swe-agent .traj.json written from its save code', () => {
  it('format mini-swe-agent-1: info, model, format errors are feedback, not observations', async () => {
    const trajectory = await read('greet-typo.traj.json');
    expect(trajectory.agentModel).toBe('openai/gpt-4.1-mini');
    expect(trajectory.metadata.exitStatus).toBe('Submitted');
    expect(trajectory.metadata.trajectoryFormat).toBe('mini-swe-agent-1');
    expect(trajectory.steps.map((step) => [step.actor, step.action.type])).toEqual([
      ['user', 'message'],
      ['agent', 'command'],
      // Two blocks in one reply: mini-swe-agent refuses to run it and says so.
      ['agent', 'message'],
      ['user', 'message'],
      ['agent', 'command'],
      ['agent', 'command'],
      ['agent', 'command'],
    ]);
    expect(exitCodes(trajectory)).toEqual([null, 0, null, null, 0, 4, null]);
    expect(trajectory.steps[5]?.observation?.content).toBe(
      'ERROR: file or directory not found: tests/test_greet.py',
    );
    expect(countTransitions(trajectory)).toBe(4);
  });

  it('format mini-swe-agent-1.1 with tool calls: results by tool_call_id, exit code from extra', async () => {
    const trajectory = await read('count-files-toolcall.traj.json');
    expect(trajectory.externalId).toBe('count-py-files');
    expect(trajectory.agentModel).toBe('anthropic/claude-sonnet-4-5-20250929');
    expect(trajectory.steps[2]?.observation).toEqual({
      kind: 'terminal',
      content: 'wc: /repo/src/missing.py: No such file or directory',
      callId: 'call_a2',
    });
    expect(exitCodes(trajectory)).toEqual([null, 0, 1, null]);
    // The exit message closes the run: it is not a step.
    expect(trajectory.steps).toHaveLength(4);
    expect(trajectory.metadata.submission).toBe('');
    expect(countTransitions(trajectory)).toBe(2);
  });
});

describe('mini-swe-agent detection and errors', () => {
  const context: RecordContext = {
    file: 'run.traj.json',
    line: 1,
    byteOffset: 0,
    ordinal: 0,
    key: null,
    header: {},
    notes: [],
  };

  it('claims .traj.json documents by trajectory_format and bare lists by their markers', () => {
    expect(
      miniSweAgentAdapter.sniff({
        fileName: 'x.json',
        head: '{"info": {}, "messages": [], "trajectory_format": "mini-swe-agent-1.1"}',
      }),
    ).toBe(true);
    expect(
      miniSweAgentAdapter.sniff({
        fileName: 'x.json',
        head: '[{"role": "user", "content": "<returncode>0</returncode>"}]',
      }),
    ).toBe(true);
    expect(
      miniSweAgentAdapter.sniff({
        fileName: 'x.json',
        head: '[{"role": "user", "content": "hi"}]',
      }),
    ).toBe(false);
    // A long run: the head ends inside `info`, before the messages and `trajectory_format`.
    expect(
      miniSweAgentAdapter.sniff({
        fileName: 'mini-swe-agent.trajectory.json',
        head: '{\n  "info": {\n    "exit_status": "Submitted",\n    "mini_version": "1.14.4",\n    "config": {"agent": {"system_template": "You are',
      }),
    ).toBe(true);
  });

  it('quarantines a broken file with its name, line and field', async () => {
    const text = `{"info": {"mini_version": "1.9.1"},\n "messages": [{"role": "user", "content": "a"}, {"content": 7}],\n "trajectory_format": "mini-swe-agent-1"}`;
    async function* chunks() {
      yield new TextEncoder().encode(text);
    }
    const events: ImportEvent[] = [];
    for await (const event of readTrajectories(chunks(), { fileName: 'bad.traj.json' }))
      events.push(event);
    expect(events).toEqual([
      { type: 'format', format: 'mini-swe-agent' },
      {
        type: 'quarantine',
        error: {
          file: 'bad.traj.json',
          line: 1,
          byteOffset: 0,
          reason: 'messages[1].role: missing (expected a string)',
        },
        excerpt: text,
      },
    ]);
  });

  it('names the field of a message without a role', () => {
    expect(() =>
      miniSweAgentAdapter.convert(
        { messages: [{ role: 'user', content: 'a' }, { content: 'b' }] },
        context,
      ),
    ).toThrowError('messages[1].role: missing (expected a string)');
  });
});
