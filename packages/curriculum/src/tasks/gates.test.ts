import { createTerminalWorld, type TerminalWorld } from '@terrarium/executable-worlds';
import { describe, expect, it } from 'vitest';
import { createWorldCatalog, SCRATCH_WORLD } from '../worlds/world-catalog';
import { BUILTIN_TASKS } from './builtin-tasks';
import { runGates, type WorldFactory } from './gates';
import { Task } from './task';
import { createTaskCatalog } from './task-catalog';

const catalog = createWorldCatalog([SCRATCH_WORLD]);
const createWorld: WorldFactory = (ref, seed) => {
  const entry = catalog.get(ref.id);
  if (!entry) throw new Error(`no world ${ref.id}`);
  return entry.create(ref.params, seed);
};

// A world with one file, and an empty one of the same kind (just-bash, nothing in it).
const withFile = (): TerminalWorld =>
  createTerminalWorld('notes', {
    cwd: '/data',
    env: {},
    entries: [{ path: '/data/a.txt', content: 'hello\n' }],
  });
const emptyWorld = (): TerminalWorld =>
  createTerminalWorld('empty', { cwd: '/data', env: {}, entries: [] });
const answerTask = (id: string, command: string, expected: string): Task =>
  Task.parse({
    ...BUILTIN_TASKS[0],
    id,
    oracle: [command, 'submit'],
    verifier: { checks: [{ check: { kind: 'answer-equals', expected, normalize: 'lines' } }] },
  });
/** The world-needed gate's result for a task set in `withFile`, with `emptyWorld` beside it. */
async function worldNeeded(candidate: Task) {
  const report = await runGates(candidate, withFile, 0, {}, emptyWorld);
  return report.gates.find((result) => result.gate === 'world-needed');
}

describe('gates', () => {
  it('accept the builtin tasks: oracle passes; empty, no-op and initial fail', async () => {
    for (const input of BUILTIN_TASKS) {
      const report = await runGates(Task.parse(input), createWorld);
      expect(report.reasons).toEqual([]);
      expect(report.gates.map((gate) => [gate.gate, gate.ok, gate.evaluation.reward])).toEqual([
        ['oracle-passes', true, 1],
        ['empty-fails', true, 0],
        ['noop-fails', true, 0],
        ['initial-fails', true, 0],
      ]);
    }
  });

  it('reject a verifier that the empty solution passes, naming the gate and the check', async () => {
    const lazy = Task.parse({
      ...BUILTIN_TASKS[0],
      id: 'lazy',
      verifier: {
        checks: [{ check: { kind: 'file-exists', path: '/data/last.txt', exists: false } }],
      },
    });
    const report = await runGates(lazy, createWorld);
    expect(report.accepted).toBe(false);
    expect(report.gates.map((gate) => gate.ok)).toEqual([false, false, false, false]);
    expect(report.reasons[1]).toBe(
      'the empty solution passes the verifier (reward 1.00; passing: file /data/last.txt does not exist)',
    );
  });

  it('reject a task whose oracle fails, with the failed check and what it saw', async () => {
    const wrong = Task.parse({
      ...BUILTIN_TASKS[0],
      id: 'wrong',
      oracle: ['echo bravo > /data/last.txt'],
    });
    const catalogOfTasks = createTaskCatalog(createWorld);
    const result = await catalogOfTasks.add(wrong);
    expect(result.accepted).toBe(false);
    expect(result.report.reasons).toEqual([
      'the oracle solution fails the verifier: file /data/last.txt has the expected content (expected "charlie\\n", got "bravo\\n")',
    ]);
    expect(catalogOfTasks.get('wrong')).toBeUndefined();
  });

  it('reject an oracle that needs more steps than the task allows a session, its submit counted', async () => {
    // Three steps: cat, echo, submit. A session truncates at maxSteps before a non-submit step.
    const tight = Task.parse({ ...BUILTIN_TASKS[0], id: 'tight', maxSteps: 2 });
    const refused = await runGates(tight, createWorld);
    expect(refused.reasons).toEqual([
      'the oracle solution takes 3 steps (its submit included), more than maxSteps (2): a session would truncate it',
    ]);
    expect((await runGates(Task.parse({ ...tight, maxSteps: 3 }), createWorld)).reasons).toEqual(
      [],
    );
    // An oracle without a submit still needs one in a session.
    const unsubmitted = Task.parse({
      ...BUILTIN_TASKS[0],
      id: 'unsubmitted',
      oracle: ['echo charlie > /data/last.txt'],
      maxSteps: 1,
    });
    expect((await runGates(unsubmitted, createWorld)).reasons).toEqual([
      'the oracle solution takes 2 steps (its submit included), more than maxSteps (1): a session would truncate it',
    ]);
  });

  it('say so when a pass threshold of 0 lets a solution through with no check holding', async () => {
    const lenient = Task.parse({
      ...BUILTIN_TASKS[0],
      id: 'lenient',
      verifier: { ...Task.parse(BUILTIN_TASKS[0]).verifier, passThreshold: 0 },
    });
    const report = await runGates(lenient, createWorld);
    expect(report.reasons[0]).toBe(
      'the empty solution passes the verifier (reward 0.00, with no check holding: the pass threshold lets it through)',
    );
  });

  it('score partial credit by weight', async () => {
    const partial = Task.parse({
      ...BUILTIN_TASKS[0],
      id: 'partial',
      verifier: {
        checks: [
          {
            weight: 3,
            check: { kind: 'file-equals', path: '/data/last.txt', content: 'charlie\n' },
          },
          {
            weight: 1,
            check: { kind: 'command-output', command: 'cat /out/extra.txt', expected: 'x\n' },
          },
        ],
      },
    });
    const report = await runGates(partial, createWorld);
    expect(report.gates[0]?.evaluation.reward).toBe(0.75);
    expect(report.gates[0]?.evaluation.breakdown[1]?.detail).toBe(
      'expected "x\\n", got "cat: /out/extra.txt: No such file or directory\\n"',
    );
  });

  it('reject an answer the oracle also gets in an empty world when it is a value of nothing', async () => {
    // Digests a folder the world lacks: the md5 of no input, which the empty world prints too.
    const missing = await worldNeeded(
      answerTask(
        'missing',
        'cat /data/sub/*.txt 2>/dev/null | md5sum',
        'd41d8cd98f00b204e9800998ecf8427e  -\n',
      ),
    );
    expect([missing?.ok, missing?.reason]).toEqual([
      false,
      'the oracle gives the expected answer ("d41d8cd98f00b204e9800998ecf8427e  -\\n") in an empty world too, a value computed over nothing: the rebuilt world lacks what the task is about',
    ]);
    // Digests the file the world has: the empty world prints another digest.
    const present = await worldNeeded(
      answerTask('present', 'cat /data/a.txt | md5sum', 'b1946ac92492d2347c6235b4d2611184  -\n'),
    );
    expect(present?.ok).toBe(true);
    // Needs no file, and is no value of nothing: a task all the same.
    const sum = await worldNeeded(answerTask('sum', 'echo $((1+2))', '3\n'));
    expect(sum?.ok).toBe(true);
  });
});
