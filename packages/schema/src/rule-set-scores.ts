/**
 * How scores written with a saved rule-set version are named, so every view can say where a
 * score came from: `NAME@vN` for the version's own score of a prediction (source `rule`), and
 * `NAME@vN/CRITERION` for a judge applying one of its criteria (source `judge`). A version is
 * immutable once saved, so the name pins exactly what produced the numbers.
 */
export function ruleSetVersionName(ruleSet: { name: string; version: number }): string {
  return `${ruleSet.name}@v${ruleSet.version}`;
}

export interface RuleSetMetric {
  name: string;
  version: number;
  /** The criterion a judge scored; null for the rule set's own score. */
  criterion: string | null;
}

// Rule-set and criterion ids are lowercase letters, digits, `.`, `_` and `-` (rule-set.ts).
const RULE_SET_METRIC =
  /^([a-z0-9][a-z0-9._-]{0,63})@v([1-9][0-9]{0,8})(?:\/([a-z0-9][a-z0-9._-]{0,63}))?$/;

/** The rule set and version a metric name was written with; null for any other metric. */
export function parseRuleSetMetric(metric: string): RuleSetMetric | null {
  const match = RULE_SET_METRIC.exec(metric);
  if (match === null) return null;
  const [, name = '', version = '', criterion] = match;
  return { name, version: Number(version), criterion: criterion ?? null };
}
