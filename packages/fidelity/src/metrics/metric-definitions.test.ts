import { JUDGE_DIMENSIONS } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { CONTENT_METRIC, metricDefinition, metricLabelOf } from './metric-definitions';
import { RULE_METRIC_IDS } from './rule-metrics';

describe('metric definitions', () => {
  it('define every score the app can show in one line', () => {
    const known = [
      ...[CONTENT_METRIC, ...RULE_METRIC_IDS].map((metric) => metricDefinition('rule', metric)),
      ...[...JUDGE_DIMENSIONS, 'overall', 'turing-fooled', 'pairwise:replay'].map((metric) =>
        metricDefinition('judge', metric),
      ),
    ];
    expect(known.filter((definition) => definition === null)).toEqual([]);
    for (const definition of known) {
      expect(definition?.definition).not.toContain('\n');
      expect(definition?.definition.length ?? 0).toBeGreaterThan(20);
    }
  });

  it('names metrics as the views show them', () => {
    expect(metricDefinition('rule', 'token-f1')).toEqual({
      label: 'Token F1',
      definition: 'F1 over multisets of word and punctuation tokens, case kept.',
    });
    expect(metricLabelOf('judge', 'pairwise:retrieval')).toBe('Pairwise vs retrieval');
    expect(metricDefinition('human', 'helpful')).toEqual({
      label: 'Helpful',
      definition: 'Human labels for helpful, averaged per item.',
    });
    expect(metricDefinition('rule', 'no-such-metric')).toBeNull();
  });

  it('say which saved rule-set version wrote a score', () => {
    expect(metricDefinition('rule', 'default-tool@v3')).toEqual({
      label: 'default-tool@v3',
      definition:
        'Rule set default-tool, version 3: its score of each prediction, from its rules (judge criteria left out).',
    });
    expect(metricDefinition('judge', 'default-tool@v3/facts')?.definition).toBe(
      "Judge applying criterion facts of rule set default-tool, version 3: its points on the criterion's scale, as 0-100.",
    );
    // A criterion's name under the rule source, or a version's under the judge's, is no such score.
    expect(metricDefinition('rule', 'default-tool@v3/facts')).toBeNull();
    expect(metricDefinition('judge', 'default-tool@v3')).toBeNull();
  });
});
