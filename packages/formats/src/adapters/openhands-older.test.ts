import { fileURLToPath } from 'node:url';
import { countTransitions, Trajectory } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { openHandsEventsAdapter } from './openhands';
import { readFile } from './testing/load-records';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

async function read(name: string): Promise<Trajectory> {
  const result = await readFile(FIXTURES + name);
  expect(result.format).toBe('openhands');
  expect(result.problems).toEqual([]);
  const [trajectory] = result.trajectories;
  if (trajectory === undefined) throw new Error('no trajectory');
  expect(Trajectory.safeParse(trajectory).success).toBe(true);
  return trajectory;
}

describe('older OpenHands output without source, id or cause', () => {
  it('evaluation output with [action, observation] pairs: each pair is one step', async () => {
    const trajectory = await read('openhands-pairs.jsonl');
    expect(trajectory.externalId).toBe('django__django-11099');
    expect(trajectory.sourceBenchmark).toBe('princeton-nlp/SWE-bench_Lite');
    expect(trajectory.steps.map((step) => [step.actor, step.action.type])).toEqual([
      ['user', 'message'],
      ['agent', 'command'],
      ['agent', 'command'],
      ['agent', 'command'],
      ['agent', 'tool_call'],
    ]);
    expect(trajectory.steps[1]?.observation).toEqual({
      kind: 'terminal',
      content: "10:    regex = r'^[\\w.@+-]+$'\n20:    regex = r'^[\\w.@+-]+$'",
      callId: null,
    });
    expect(trajectory.steps[1]?.metadata.exitCode).toBe(0);
    expect(trajectory.steps[3]?.action).toEqual({
      type: 'command',
      command: "import re\nprint(bool(re.match(r'^[\\w.@+-]+\\Z', 'bob\\n')))",
      interpreter: 'python',
    });
    // The `null` observations after the message and finish are no output.
    expect(trajectory.metadata.skippedStateEvents).toBe(2);
    expect(countTransitions(trajectory)).toBe(3);
  });

  it('resolver output: adjacent action/observation dicts, issue id, success', async () => {
    const trajectory = await read('openhands-resolver.jsonl');
    expect(trajectory.externalId).toBe('acme/widgets#42');
    expect(trajectory.task?.startsWith('Please fix the following issue')).toBe(true);
    expect(trajectory.outcome).toEqual({ reward: 1, success: true });
    expect(
      trajectory.steps.map((step) => [step.action.type, step.observation?.content ?? null]),
    ).toEqual([
      ['message', null],
      ['command', 'def size(w):\n    return w.width * w.heigth\n'],
      ['tool_call', '[File widgets/size.py updated]'],
      ['command', '1 passed in 0.02s'],
      ['tool_call', null],
    ]);
    expect(trajectory.metadata.resultExplanation).toBe(
      'size() now reads w.height; the test passes.',
    );
    expect(countTransitions(trajectory)).toBe(3);
  });

  it('an exported history of pairs without source is detected and paired the same way', () => {
    const history = [
      [
        { action: 'run', args: { command: 'ls', thought: 'Look around.' }, message: 'Running' },
        { observation: 'run', content: 'README.md\nsrc', extras: { exit_code: 0 }, message: 'ok' },
      ],
      [
        { action: 'run', args: { command: 'cat nope', thought: '' }, message: 'Running' },
        { observation: 'run', content: 'cat: nope: No such file', extras: { exit_code: 1 } },
      ],
    ];
    const head = JSON.stringify(history, null, 2);
    expect(openHandsEventsAdapter.sniff({ fileName: 'history.json', head })).toBe(true);
    const [trajectory] = openHandsEventsAdapter.convert(history, {
      file: 'history.json',
      line: 1,
      byteOffset: 0,
      ordinal: 0,
      key: null,
      header: {},
      notes: [],
    });
    expect(
      trajectory?.steps.map((step) => [step.observation?.content ?? null, step.metadata.exitCode]),
    ).toEqual([
      ['README.md\nsrc', 0],
      ['cat: nope: No such file', 1],
    ]);
  });
});
