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
});
