import { stringify } from 'yaml';
import type { RuleSetInput } from './rule-set';

/** A rule set as the YAML document the editor opens (defaults and stored JSON alike). */
export function ruleSetYaml(ruleSet: RuleSetInput): string {
  return stringify(ruleSet, { lineWidth: 100 });
}

/**
 * A version as a diff shows it: a JSON document indented two spaces a level, so that a document
 * saved on one line (as a program posts it) diffs rule by rule instead of as one changed line.
 * YAML, and JSON that does not parse, are shown as stored.
 */
export function diffableDocument(text: string): string {
  if (!/^\s*[{[]/.test(text)) return text;
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return text;
  }
}
