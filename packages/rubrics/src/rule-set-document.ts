import { stringify } from 'yaml';
import type { RuleSetInput } from './rule-set';

/** A rule set as the YAML document the editor opens (defaults and stored JSON alike). */
export function ruleSetYaml(ruleSet: RuleSetInput): string {
  return stringify(ruleSet, { lineWidth: 100 });
}
