import { parseRuleSet, type CustomRule, type CustomRuleInput } from '@terrarium/rubrics';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool, SandboxError } from './sandbox-pool';

function customRule(source: string, timeoutMs: number): CustomRule {
  const parsed = parseRuleSet(
    `name: pooled\nrules:\n  - id: r\n    type: custom\n    timeoutMs: ${timeoutMs}\n    source: ${JSON.stringify(source)}\n`,
  );
  const [rule] = parsed.ok ? parsed.ruleSet.rules : [];
  if (rule?.type !== 'custom') throw new Error('the test rule does not parse');
  return rule;
}

const INPUT: CustomRuleInput = {
  prediction: 'x',
  reference: 'x',
  history: [],
  action: '',
  domain: null,
  tool: '',
};
// Stopped by the interpreter's own check at its 300 ms limit: a slow rule that ends cleanly.
const SLOW = customRule('function score() { while (true) {} }', 300);
const QUICK = customRule('function score() { return 1 }', 300);

describe('the sandbox pool', () => {
  // One worker, so the order the jobs run in is the order they finish in.
  const pool = createSandboxPool({ size: 1 });
  afterAll(() => pool.close());

  // About 1.5 s of rules and a worker's start: on a machine running other suites, more than
  // vitest's default 5 s (CI 55 ran beside a second suite). The test is of order, not of time.
  it(
    "gives callers turns: one caller's queue does not hold up another's rule",
    { timeout: 30_000 },
    async () => {
      const finished: string[] = [];
      const track = (name: string, run: Promise<unknown>) =>
        run.then(
          () => finished.push(name),
          () => finished.push(name),
        );
      const busy = new AbortController();
      const slow = [1, 2, 3, 4].map((n) => track(`slow ${n}`, pool.run(SLOW, INPUT, busy.signal)));
      const quick = track('quick', pool.run(QUICK, INPUT, new AbortController().signal));
      // A new inline rule set's check is a caller of its own too (walk 47: it queued behind all).
      const check = track('check', pool.check(QUICK, new AbortController().signal));
      await Promise.all([...slow, quick, check]);
      // The first slow rule was running when the others came; both newcomers run before the busy
      // caller's next rule (a newcomer joins the round at its cursor, so the later one goes first).
      expect(finished).toEqual(['slow 1', 'check', 'quick', 'slow 2', 'slow 3', 'slow 4']);
    },
  );

  it(
    'drops the queued rules of a caller whose request ended, and runs the others',
    { timeout: 30_000 },
    async () => {
      const ended = new AbortController();
      const runs = [1, 2, 3].map(() =>
        pool.run(SLOW, INPUT, ended.signal).then(
          () => 'ran',
          (error: unknown) => (error instanceof SandboxError ? error.message : 'other'),
        ),
      );
      ended.abort();
      // The first was already in the worker: it ends as rules do (its time-out is its result).
      const [first, ...dropped] = await Promise.all(runs);
      expect(first).toMatch(/^timed out after 300 ms/);
      expect(dropped).toEqual([
        'the request ended before the rule ran',
        'the request ended before the rule ran',
      ]);
      await expect(pool.run(QUICK, INPUT, ended.signal)).rejects.toThrow(
        'the request ended before the rule ran',
      );
      await expect(pool.run(QUICK, INPUT)).resolves.toEqual({ score: 1 });
    },
  );
});
