import { getQuickJS, type QuickJSWASMModule } from 'quickjs-emscripten';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CustomRuleInput } from '../evaluate';
import {
  CustomRuleError,
  loadCappedModule,
  moduleMemoryCap,
  QuickJsSandbox,
  runInQuickJs,
} from './run-in-quickjs';
import { transpileCustomRule } from './transpile';

const INPUT: CustomRuleInput = {
  prediction: '{"status": "landed"}',
  reference: '{"status": "landed", "gate": "B12"}',
  history: [],
  action: 'get_flight_status {"flight": "HAT001"}',
  domain: 'tool',
  tool: 'get_flight_status',
};
// A second: far above what these rules need, so a loaded machine does not time out a rule that
// ends, and short enough for the tests of rules that never do.
const LIMITS = { timeoutMs: 1000, memoryMb: 16 };

let quickjs: QuickJSWASMModule;
beforeAll(async () => {
  quickjs = await getQuickJS();
});

/** A clock that gives these readings in turn, then keeps giving the last. */
function clock(readings: readonly number[]): () => number {
  let next = 0;
  return () => readings[Math.min(next++, readings.length - 1)] ?? 0;
}

async function run(source: string, language: 'javascript' | 'typescript' = 'javascript') {
  return runInQuickJs(quickjs, await transpileCustomRule({ source, language }), INPUT, LIMITS);
}

/** Checks a rule without an item (a 200 ms limit, as a rule set's own default). */
async function check(source: string) {
  return runInQuickJs(
    quickjs,
    await transpileCustomRule({ source, language: 'javascript' }),
    null,
    {
      timeoutMs: 200,
      memoryMb: 16,
    },
  );
}

describe('custom rules in QuickJS', () => {
  it('runs JavaScript and TypeScript rules on the item', async () => {
    expect(
      await run('function score(item) { return item.prediction.includes("landed") ? 1 : 0 }'),
    ).toEqual({ score: 1 });
    expect(
      await run(
        `interface Item { reference: string; prediction: string }
         export function score(item: Item): { score: number; detail: string } {
           const ratio: number = item.prediction.length / item.reference.length;
           return { score: ratio, detail: 'length ratio' };
         }`,
        'typescript',
      ),
    ).toEqual({ score: 20 / 35, detail: 'length ratio' });
    expect(await run('exports.default = () => null')).toEqual({ score: null });
  });

  it.each([
    ['an infinite loop', 'function score() { for (;;) {} }', /^timed out after 1000 ms$/],
    [
      // A rule that fills its heap slowly meets the time limit before the memory limit.
      '9.8 MB held (100 × 100 KB), then a loop',
      'function score() { const a = []; for (let i = 0; i < 100; i++) a.push(new Uint8Array(102400)); for (;;) {} }',
      /^timed out after 1000 ms with (9\.[89]|10\.[01]) of its 16 MB of memory in use: it may be filling memory$/,
    ],
    [
      'a 1 GB allocation',
      'function score() { return new Uint8Array(1024 * 1024 * 1024).length }',
      'exceeded the memory limit of 16 MB',
    ],
    [
      'an array of a billion',
      'function score() { const a = []; for (let i = 0; i < 1e9; i++) a.push(i); return 1 }',
      /memory limit|timed out/,
    ],
    [
      'deep recursion',
      'function score() { const f = (n) => f(n + 1) + 1; return f(0) }',
      'stack overflow (recursion too deep)',
    ],
    [
      'reading files',
      'function score() { return require("fs").readFileSync("/etc/passwd", "utf8").length }',
      'ReferenceError: require is not defined',
    ],
    [
      'opening a socket',
      'function score() { fetch("http://127.0.0.1:1/"); return 1 }',
      'ReferenceError: fetch is not defined',
    ],
    [
      'touching process',
      'function score() { return process.exit(1) }',
      'ReferenceError: process is not defined',
    ],
    [
      'importing a module',
      'function score() { return import("fs") }',
      /score\(item\) must return|not supported|could not load|import/i,
    ],
    [
      'a wrong return type',
      'function score() { return "high" }',
      'score(item) must return a number, null or {score, detail}',
    ],
    [
      // Not null ("does not apply"), which is what JSON would make of it.
      'NaN',
      'function score(item) { return item.prediction.length / 0 - Infinity }',
      'TypeError: score(item) returned NaN, not a number in [0, 1]',
    ],
    [
      'Infinity in {score, detail}',
      'function score() { return { score: 1 / 0, detail: "ratio" } }',
      'TypeError: score(item) returned Infinity, not a number in [0, 1]',
    ],
    ['no score function', 'const x = 1', 'the rule defines no function score(item)'],
    ['a syntax error', 'function score( {', /does not compile/],
  ])('%s ends in a clear error', async (_name, source, message) => {
    const failure = run(source);
    await expect(failure).rejects.toBeInstanceOf(CustomRuleError);
    await expect(failure).rejects.toThrow(message);
  });

  it('checks a rule without an item: its top level runs and it must define score', async () => {
    // score is not called: one that would throw on any item still passes the check.
    expect(await check('function score(item) { return item.nothing.here }')).toEqual({
      score: null,
    });
    expect(await check('export default function (item) { return 1 }')).toEqual({ score: null });
    await expect(check('function nope() {}')).rejects.toThrow(
      /^the rule defines no function score\(item\) \(write `function score\(item\) \{ … \}` or `export function score`\)$/,
    );
    await expect(check('const score = 1')).rejects.toThrow('no function score(item)');
    await expect(check('for (;;) {} function score() { return 1 }')).rejects.toThrow(
      'timed out after 200 ms',
    );
  });

  it('says when a rule that overran its limit was really stopped', async () => {
    // QuickJS asks the clock only between steps; a clock that reads 1,043 ms at the first ask
    // stands in for a rule whose steps were long calls (walk 41: ~1 s each at a 1 ms limit).
    const compiled = await transpileCustomRule({
      source: 'function score() { for (;;) {} }',
      language: 'javascript',
    });
    const stopped = (limits: { timeoutMs: number; memoryMb: number }, readings: number[]) => {
      try {
        runInQuickJs(quickjs, compiled, INPUT, limits, { now: clock(readings) });
        return 'not stopped';
      } catch (error) {
        return error instanceof CustomRuleError ? error.message : String(error);
      }
    };
    expect(stopped({ timeoutMs: 1, memoryMb: 16 }, [0, 1043])).toBe(
      "timed out after 1 ms (stopped only after 1,043 ms: the limit is checked between the rule's steps, and one of them ran long, such as a large String.repeat or allocation near the memory limit)",
    );
    // Within twice the limit (a loaded machine), the limit alone is the honest figure.
    expect(stopped({ timeoutMs: 1000, memoryMb: 16 }, [0, 1900])).toBe('timed out after 1000 ms');
  });

  it('holds a rule to the sum of its allocations, not to each one (walk 52: 400 MB kept under 2 MB)', async () => {
    const loaded: QuickJSWASMModule[] = [];
    const sandbox = new QuickJsSandbox(async (memoryMb) => {
      const module = await loadCappedModule(memoryMb);
      loaded.push(module);
      return module;
    });
    const limits = { timeoutMs: 10_000, memoryMb: 2 };
    // Each allocation (10 KB) is far under the limit; QuickJS's own check lets all of them through.
    const hog = await transpileCustomRule({
      source:
        'function score() { const a = []; for (let k = 0; k < 40000; k++) a.push(new Array(1250).fill(k + 0.5)); return { score: 1, detail: "kept " + a.length } }',
      language: 'javascript',
    });
    await expect(sandbox.run(hog, INPUT, limits)).rejects.toThrow(
      new CustomRuleError('exceeded the memory limit of 2 MB'),
    );
    // The module's memory never grew past its cap, whatever the checks between steps missed.
    const [first] = loaded;
    expect(first?.getWasmMemory().buffer.byteLength).toBeLessThanOrEqual(moduleMemoryCap(2));
    // Within its limit, the same kind of rule scores, in the same sandbox.
    const fits = await transpileCustomRule({
      source:
        'function score() { const a = []; for (let k = 0; k < 100; k++) a.push(new Array(1250).fill(k + 0.5)); return { score: 1, detail: "kept " + a.length } }',
      language: 'javascript',
    });
    expect(await sandbox.run(fits, INPUT, limits)).toEqual({ score: 1, detail: 'kept 100' });
    // 8 MB of a 16 MB limit is not over it: the count is of what the rule holds.
    const half = await transpileCustomRule({
      source:
        'function score() { const a = []; for (let k = 0; k < 800; k++) a.push(new Array(1250).fill(k + 0.5)); return a.length === 800 ? 1 : 0 }',
      language: 'javascript',
    });
    expect(await sandbox.run(half, INPUT, { timeoutMs: 10_000, memoryMb: 16 })).toEqual({
      score: 1,
    });
  });

  it('gives back the memory of a rule that filled its heap: its module is replaced', async () => {
    const sandbox = new QuickJsSandbox();
    const filler = await transpileCustomRule({
      source:
        'function score() { const a = []; for (let k = 0; k < 6000; k++) a.push(new Array(1250).fill(k + 0.5)); return a.length === 6000 ? 1 : 0 }',
      language: 'javascript',
    });
    const good = await transpileCustomRule({
      source: 'function score(item) { return item.prediction.includes("landed") ? 1 : 0 }',
      language: 'javascript',
    });
    const limits = { timeoutMs: 10_000, memoryMb: 128 };
    // ~60 MB held: within its limit, but more than a module keeps once the rule is done.
    expect(await sandbox.run(filler, INPUT, limits)).toEqual({ score: 1 });
    expect(await sandbox.run(good, INPUT, limits)).toEqual({ score: 1 });
    expect(await sandbox.run(good, INPUT, limits)).toEqual({ score: 1 });
    expect(sandbox.modulesStarted).toBe(2);
  });

  it('keeps running rules after many stack overflows, in a new module when one is spent', async () => {
    const sandbox = new QuickJsSandbox();
    const overflow = await transpileCustomRule({
      source: 'function score() { const f = (n) => f(n + 1) + 1; return f(0) }',
      language: 'javascript',
    });
    const good = await transpileCustomRule({
      source: 'function score(item) { return item.prediction.includes("landed") ? 1 : 0 }',
      language: 'javascript',
    });
    // One module used to stop running any rule after ten of these.
    for (let overflows = 0; overflows < 15; overflows++) {
      await expect(sandbox.run(overflow, INPUT, LIMITS)).rejects.toThrow(
        'stack overflow (recursion too deep)',
      );
    }
    expect(await sandbox.run(good, INPUT, LIMITS)).toEqual({ score: 1 });
    // Each overflow's runtime fails its teardown, so each next run starts a module.
    expect(sandbox.modulesStarted).toBe(16);
  });
});
