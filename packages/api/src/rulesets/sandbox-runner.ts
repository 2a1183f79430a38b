import type { CustomRule, CustomRuleInput, CustomRuleResult } from '@terrarium/rubrics';
import { createSandboxPool, type SandboxPool } from './sandbox-pool';

let shared: SandboxPool | null = null;

/**
 * The process's sandbox pool, started on the first custom rule (a server that never sees one
 * starts no workers). Idle workers do not keep the process alive.
 */
export function sharedCustomRuleRunner(): (
  rule: CustomRule,
  input: CustomRuleInput,
) => Promise<CustomRuleResult> {
  return (rule, input) => {
    shared ??= createSandboxPool();
    return shared.run(rule, input);
  };
}
