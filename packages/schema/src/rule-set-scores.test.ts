import { describe, expect, it } from 'vitest';
import { parseRuleSetMetric, ruleSetVersionName } from './rule-set-scores';

describe('rule-set score names', () => {
  it('round-trips a version name and reads a criterion after it', () => {
    const name = ruleSetVersionName({ name: 'default-tool', version: 12 });
    expect(name).toBe('default-tool@v12');
    expect(parseRuleSetMetric(name)).toEqual({
      name: 'default-tool',
      version: 12,
      criterion: null,
    });
    expect(parseRuleSetMetric(`${name}/facts`)).toEqual({
      name: 'default-tool',
      version: 12,
      criterion: 'facts',
    });
  });

  it('is null for the built-in metrics and malformed names', () => {
    for (const metric of [
      'content',
      'token_f1',
      'pairwise:retrieval',
      'x@v0',
      'x@v',
      'X@v1',
      'x@v1/',
    ])
      expect(parseRuleSetMetric(metric)).toBeNull();
  });
});
