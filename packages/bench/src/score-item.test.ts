import { describe, expect, it } from 'vitest';
import { RULE_METRIC_IDS } from '@terrarium/fidelity';
import { ItemScore } from '@terrarium/schema';
import { buildBench } from './build-bench';
import { readSources } from './real-data.testkit';
import { classifyItem, CONTENT_METRIC, scoreClassifiedItem, scoreItem } from './score-item';

const { items } = buildBench({
  trajectories: await readSources(['tau2-airline', 'swe-agent']),
  name: 'score-test',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 1,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: ['tau2-airline', 'swe-agent'],
});

function valueOf(scores: ItemScore[], metric: string): number | null | undefined {
  return scores.find((score) => score.metric === metric)?.value;
}

describe('scoreItem', () => {
  it('gives one rule score per metric plus the content score, all valid ItemScores', () => {
    const item = items[0];
    if (item === undefined) throw new Error('empty bench');
    const scores = scoreItem(item, 'replay', item.real);
    expect(scores.map((score) => score.metric)).toEqual([...RULE_METRIC_IDS, CONTENT_METRIC]);
    expect(scores.every((score) => ItemScore.safeParse(score).success)).toBe(true);
    expect(scores.every((score) => score.source === 'rule' && score.sim === 'replay')).toBe(true);
  });

  it('scores the real observation 1 on every applicable metric of every item', () => {
    const imperfect = items.flatMap((item) =>
      scoreItem(item, 'replay', item.real)
        .filter((score) => score.value !== null && score.value !== 1)
        .map((score) => `${item.id} ${score.metric} ${String(score.value)}`),
    );
    expect(imperfect).toEqual([]);
    expect(items).toHaveLength(191);
  });

  it('leaves JSON metrics out (null) where the real observation is not JSON', () => {
    const text = items.find((item) => item.task === 'swe-agent/swe' && item.turnIndex > 0);
    if (text === undefined) throw new Error('no SWE item');
    const scores = scoreItem(text, 'replay', text.real);
    expect(valueOf(scores, 'json-validity')).toBeNull();
    expect(valueOf(scores, 'json-structure')).toBeNull();
  });

  it('explains a wrong prediction: per class matched/total and the mismatched spans', () => {
    const item = items.find(
      (candidate) =>
        candidate.task === 'tau2-bench/airline' && candidate.real.content.startsWith('{'),
    );
    if (item === undefined) throw new Error('no JSON airline item');
    const scores = scoreItem(item, 'empty', { kind: 'text', content: '', callId: null });
    const content = scores.find((score) => score.metric === CONTENT_METRIC);
    expect(content?.value).toBeLessThan(0.2);
    expect(valueOf(scores, 'exact-match')).toBe(0);
    expect(valueOf(scores, 'json-validity')).toBe(0);
    const detail = content?.detail;
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
      throw new Error('detail is not an object');
    }
    const classes = detail['classes'];
    if (typeof classes !== 'object' || classes === null || Array.isArray(classes)) {
      throw new Error('detail.classes is not an object');
    }
    const structure = classes['structure'];
    if (typeof structure !== 'object' || structure === null || Array.isArray(structure)) {
      throw new Error('no structure class');
    }
    expect(structure['matched']).toBe(0);
    const mismatched = structure['mismatched'];
    expect(Array.isArray(mismatched) && mismatched.length).toBe(
      Math.min(10, Number(structure['total'])),
    );
  });

  it('gives the same scores through the classify-once path', () => {
    for (const item of items.slice(0, 40)) {
      const classified = classifyItem(item);
      const other = items[(items.indexOf(item) + 7) % items.length]?.real ?? item.real;
      expect(scoreClassifiedItem(classified, 'sim', other)).toEqual(scoreItem(item, 'sim', other));
    }
  });
});
