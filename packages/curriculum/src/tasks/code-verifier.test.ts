import { loadQuickJs, runInQuickJs, transpileCustomRule } from '@terrarium/rubrics/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorldCatalog, SCRATCH_WORLD } from '../worlds/world-catalog';
import { BUILTIN_TASKS } from './builtin-tasks';
import { runGates, runSolution, type WorldFactory } from './gates';
import { Task, type TaskInput } from './task';
import type { CodeRunner } from './verifier';

const catalog = createWorldCatalog([SCRATCH_WORLD]);
const createWorld: WorldFactory = (ref, seed) => {
  const entry = catalog.get(ref.id);
  if (!entry) throw new Error(`no world ${ref.id}`);
  return entry.create(ref.params, seed);
};

// The rubrics' sandbox itself (QuickJS wasm, its limits), run in process here; the server runs the
// same code in its worker pool.
let runCode: CodeRunner;
beforeAll(async () => {
  const quickjs = await loadQuickJs();
  runCode = async (check, item) =>
    runInQuickJs(quickjs, await transpileCustomRule(check), item, {
      timeoutMs: check.timeoutMs,
      memoryMb: check.memoryMb,
    });
});

function withCode(id: string, code: Record<string, unknown>): Task {
  const base: TaskInput | undefined = BUILTIN_TASKS[0];
  if (base === undefined) throw new Error('no builtin task');
  return Task.parse({
    ...base,
    id,
    verifier: { checks: [{ name: 'code', check: { kind: 'code', ...code } }] },
  });
}

const LAST_LINE_TS = `
interface Item { prediction: string; reference: string }
export function score(item: Item): { score: number; detail: string } {
  const seen: { files: Record<string, string | null> } = JSON.parse(item.reference);
  const last = seen.files['/data/last.txt'];
  return { score: last === 'charlie\\n' ? 1 : 0, detail: 'last.txt is ' + JSON.stringify(last) };
}`;

describe('code verifiers in the QuickJS sandbox', () => {
  it('a TypeScript verifier reading the final files passes the oracle and fails empty, no-op and initial', async () => {
    const task = withCode('code-last-line', {
      language: 'typescript',
      source: LAST_LINE_TS,
      files: ['/data/last.txt'],
    });
    const report = await runGates(task, createWorld, 0, { runCode });
    expect(report.reasons).toEqual([]);
    expect(report.gates.map((gate) => [gate.gate, gate.ok, gate.evaluation.reward])).toEqual([
      ['oracle-passes', true, 1],
      ['empty-fails', true, 0],
      ['noop-fails', true, 0],
      ['initial-fails', true, 0],
    ]);
    expect(report.gates[1]?.evaluation.breakdown).toEqual([
      { name: 'code', weight: 1, passed: false, detail: 'scored 0, needs 1 (last.txt is null)' },
    ]);
  });

  it('sees command outputs (run in forks) and the answer', async () => {
    const task = withCode('code-answer', {
      source: `function score(item) {
        var seen = JSON.parse(item.reference);
        return seen.outputs[0] === '3 /data/notes.txt\\n' && item.prediction.trim() === '3' ? 1 : 0.25;
      }`,
      commands: ['wc -l /data/notes.txt'],
    });
    const solved = await runSolution(
      task,
      createWorld,
      [{ tool: 'submit', arguments: { answer: '3' } }],
      0,
      { runCode },
    );
    expect(solved.evaluation.reward).toBe(1);
    const wrong = await runSolution(
      task,
      createWorld,
      [{ tool: 'submit', arguments: { answer: '4' } }],
      0,
      { runCode },
    );
    expect(wrong.evaluation.breakdown[0]?.detail).toBe('scored 0.25, needs 1');
  });

  it('rejects a task whose verifier rewards everything, and one whose code never ends (time limit)', async () => {
    const lazy = await runGates(
      withCode('code-lazy', { source: 'function score() { return 1; }' }),
      createWorld,
      0,
      { runCode },
    );
    expect(lazy.accepted).toBe(false);
    expect(lazy.reasons[0]).toBe(
      'the empty solution passes the verifier (reward 1.00; passing: code)',
    );
    const stuck = await runGates(
      withCode('code-stuck', { source: 'function score() { for (;;) {} }', timeoutMs: 50 }),
      createWorld,
      0,
      { runCode },
    );
    expect(stuck.accepted).toBe(false);
    expect(stuck.reasons[0]).toBe(
      'the oracle solution fails the verifier: code (the verifier code failed: timed out after 50 ms)',
    );
  });

  it('has no host access (require is undefined) and fails closed without a sandbox', async () => {
    const task = withCode('code-host', {
      source: 'function score() { return require("fs") ? 1 : 0; }',
    });
    const run = await runSolution(task, createWorld, task.oracle, 0, { runCode });
    expect(run.evaluation.breakdown[0]?.detail).toBe(
      'the verifier code failed: ReferenceError: require is not defined (a rule has no files, network, timers or process)',
    );
    const bare = await runSolution(task, createWorld, task.oracle);
    expect(bare.evaluation.breakdown[0]?.detail).toBe(
      'this server runs no code verifiers (no sandbox configured)',
    );
  });
});
