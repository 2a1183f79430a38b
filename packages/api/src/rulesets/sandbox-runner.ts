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

export function sharedCustomRuleRunner(): (
  rule: CustomRule,
  input: CustomRuleInput,
) => Promise<CustomRuleResult> {
  return (rule, input) => sharedPool().run(rule, input);
}

/** Checks a custom rule in the shared pool (see `SandboxPool.check`). */
export function sharedCustomRuleChecker(): (rule: CustomRule) => Promise<void> {
  return (rule) => sharedPool().check(rule);
}
