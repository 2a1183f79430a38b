/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ruleSetJsonSchema } from './json-schema';
import { formatRuleSetIssues, parseRuleSet } from './parse-rule-set';

const YAML_SET = `name: airline-strict
rules:
  - id: content
    type: content
  - id: valid-json
    type: metric
    metric: json-validity
    threshold: 1
criteria:
  - id: no-invented-refund
    text: Does the output promise a refund the policy does not allow?
    category: pitfall
combine:
  gate: valid-json
`;

describe('parseRuleSet', () => {
  it('reads YAML and fills in the defaults', () => {
    const parsed = parseRuleSet(YAML_SET);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.ruleSet.rules.map((rule) => [rule.id, rule.weight, rule.not])).toEqual([
      ['content', 1, false],
      ['valid-json', 1, false],
    ]);
    expect(parsed.ruleSet.criteria[0]?.scale).toEqual({ min: 0, max: 1 });
    expect(parsed.ruleSet.combine).toEqual({ rules: 1, criteria: 1, gate: 'valid-json' });
  });

  it('reads the same set written as JSON', () => {
    const json = JSON.stringify({
      name: 'airline-strict',
      rules: [{ id: 'content', type: 'content' }],
    });
    const parsed = parseRuleSet(json);
    expect(parsed.ok && parsed.ruleSet.rules[0]?.type).toBe('content');
  });

  it('names the field, line and column of a schema error', () => {
    const parsed = parseRuleSet(YAML_SET.replace('metric: json-validity', 'metric: json-valid'));
    expect(parsed).toEqual({
      ok: false,
      issues: [
        {
          field: 'rules.1.metric',
          line: 7,
          column: 13,
          message: expect.stringContaining('"json-validity"'),
        },
      ],
    });
  });

  it('refuses a scope naming a domain items never have, naming the field', () => {
    // walk 43: `tooll` was taken, and the rule was out of scope for every item, silently.
    const scoped = YAML_SET.replace(
      '    type: content\n',
      '    type: content\n    scope:\n      domains: [tooll]\n',
    );
    const parsed = parseRuleSet(scoped);
    expect(!parsed.ok && parsed.issues.map((issue) => [issue.field, issue.line])).toEqual([
      ['rules.0.scope.domains.0', 6],
    ]);
  });

  it('refuses a pattern that is no regular expression, naming the field and why', () => {
    const parsed = parseRuleSet(`name: my-regex
rules:
  - id: opened
    type: pattern
    pattern: "(unclosed"
`);
    expect(parsed).toEqual({
      ok: false,
      issues: [
        {
          field: 'rules.0.pattern',
          line: 5,
          column: 14,
          message:
            'not a valid regular expression: Invalid regular expression: /(unclosed/: Unterminated group',
        },
      ],
    });
  });

  it('points at an unknown key and at a dangling reference', () => {
    const parsed = parseRuleSet(
      YAML_SET.replace('    threshold: 1', '    treshold: 1').replace(
        'gate: valid-json',
        'gate: valid',
      ),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues.map(({ field, line, column }) => ({ field, line, column }))).toEqual([
      { field: 'rules.1.treshold', line: 8, column: 5 },
      { field: 'combine.gate', line: 14, column: 9 },
    ]);
    expect(formatRuleSetIssues(parsed.issues)).toContain('combine.gate (14:9): no rule valid');
  });

  it('reports YAML syntax errors with their position', () => {
    const parsed = parseRuleSet('name: x\nrules: [\n');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues[0]?.field).toBe('');
    expect(parsed.issues[0]?.line).toBe(3);
  });

  it('rejects a pitfall-free document that scores nothing', () => {
    const parsed = parseRuleSet('name: empty\n');
    expect(!parsed.ok && parsed.issues.map((issue) => issue.message)).toEqual([
      'a rule set needs at least one rule or criterion',
    ]);
  });
});

describe('rule-set.schema.json', () => {
  it('is the schema generated from zod (regenerate: pnpm --filter @terrarium/rubrics schema)', () => {
    const file = new URL('../rule-set.schema.json', import.meta.url);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(ruleSetJsonSchema());
  });
});
