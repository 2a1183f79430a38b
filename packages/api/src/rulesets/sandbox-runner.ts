import type { CustomRule, CustomRuleInput, CustomRuleResult } from '@terrarium/rubrics';
import { createSandboxPool, type SandboxPool } from './sandbox-pool';

let shared: SandboxPool | null = null;

/**
 * The process's sandbox pool, started on the first custom rule (a server that never sees one
 * starts no workers). Idle workers do not keep the process alive.
 */
function sharedPool(): SandboxPool {
  shared ??= createSandboxPool();
  return shared;
}

/** Runs a rule in the shared pool; a caller's `signal` gives it its turns (SandboxPool.run). */
export function sharedCustomRuleRunner(): (
  rule: CustomRule,
  input: CustomRuleInput,
  signal?: AbortSignal,
) => Promise<CustomRuleResult> {
  return (rule, input, signal) => sharedPool().run(rule, input, signal);
}

/** Checks a custom rule in the shared pool (see `SandboxPool.check`). */
export function sharedCustomRuleChecker(): (
  rule: CustomRule,
  signal?: AbortSignal,
) => Promise<void> {
  return (rule, signal) => sharedPool().check(rule, signal);
}
