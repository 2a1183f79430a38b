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
