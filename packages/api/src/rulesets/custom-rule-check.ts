import type { CustomRule, RuleSet, RuleSetIssue } from '@terrarium/rubrics';
import { SandboxError } from './sandbox-pool';

/**
 * Rejects unless the rule compiles, its top level runs and it defines `score`: with a
 * `SandboxError` whose fault is the rule's, saying why, or with any other error for the server's.
 */
/** Checks one rule; a caller's `signal` gives the check its turns in the pool (SandboxPool.run). */
export type CheckCustomRule = (rule: CustomRule, signal?: AbortSignal) => Promise<void>;

type Place = (path: readonly PropertyKey[]) => { line: number; column: number };

/** Rules that passed, so a trainer sending one inline rule set per request checks it once. */
const passed = new Set<string>();
const MAX_PASSED = 256;

function keyOf(rule: CustomRule): string {
  return JSON.stringify([rule.language, rule.timeoutMs, rule.memoryMb, rule.source]);
}

/**
 * The custom rules of a rule set that could score nothing, as issues on their `source` (walk 43:
 * `function nope(){}` was accepted and every item then scored 0 with a 200 answer, so a typo gave
 * a whole training run reward 0). Each rule is compiled and its top level run in the sandbox,
 * without an item: a rule whose `score` fails on some items is still accepted, and says so there.
 */
export async function customRuleIssues(
  ruleSet: RuleSet,
  check: CheckCustomRule,
  place: Place = () => ({ line: 0, column: 0 }),
): Promise<RuleSetIssue[]> {
  const checks = ruleSet.rules.map(async (rule, index): Promise<RuleSetIssue | null> => {
    if (rule.type !== 'custom') return null;
    const key = keyOf(rule);
    if (passed.has(key)) return null;
    try {
      await check(rule);
    } catch (error) {
      // A lost worker or a closed pool is the server's failure, not the rule's: not an issue on
      // its source (a trainer would not retry a 400).
      if (!(error instanceof SandboxError) || error.fault !== 'rule') throw error;
      const path = ['rules', index, 'source'];
      return { field: path.join('.'), message: error.message, ...place(path) };
    }
    if (passed.size >= MAX_PASSED) passed.clear();
    passed.add(key);
    return null;
  });
  return (await Promise.all(checks)).filter((issue) => issue !== null);
}
