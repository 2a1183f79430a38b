import { describe, expect, it } from 'vitest';
import { defaultRuleSet } from './default-rule-sets';
import { diffLines, diffRuleSets } from './diff-rule-sets';
import { RuleSet } from './rule-set';

describe('diffLines', () => {
  it('keeps common lines and marks the rest', () => {
    expect(diffLines('a\nb\nc', 'a\nx\nc\nd')).toEqual([
      { kind: 'same', text: 'a', line: 1 },
      { kind: 'added', text: 'x', line: 2 },
      { kind: 'removed', text: 'b', line: 2 },
      { kind: 'same', text: 'c', line: 3 },
      { kind: 'added', text: 'd', line: 4 },
    ]);
  });
});

describe('diffRuleSets', () => {
  it('names added, removed and changed entries', () => {
    const before = defaultRuleSet('tool');
    const after = RuleSet.parse({
      ...before,
      rules: [...before.rules, { id: 'valid-json', type: 'metric', metric: 'json-validity' }],
      criteria: before.criteria
        .filter((c) => c.id !== 'realism')
        .map((c) => (c.id === 'facts' ? { ...c, category: 'important' } : c)),
      combine: { rules: 1, criteria: 1 },
    });
    expect(diffRuleSets(before, after)).toEqual([
      { kind: 'rule', id: 'valid-json', change: 'added' },
      { kind: 'criterion', id: 'facts', change: 'changed' },
      { kind: 'criterion', id: 'realism', change: 'removed' },
      { kind: 'combine', id: 'combine', change: 'changed' },
    ]);
  });
});
