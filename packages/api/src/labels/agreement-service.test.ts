import type { StoredLabel } from '@terrarium/db';
import type { LabelCriterion } from '@terrarium/labels';
import type { ItemScore } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { AGREEMENT_BOOTSTRAP, agreementReport } from '@terrarium/labels';
import { labelerAgreement, ratingsOf, versusMachines } from './agreement-service';

const FORMAT: LabelCriterion = { id: 'format', text: 'Right form?', min: 1, max: 5, weight: 1 };
const INVENTED: LabelCriterion = {
  id: 'invented-outcome',
  text: 'Does it invent an outcome?',
  min: 0,
  max: 1,
  weight: -0.9,
};

function label(itemId: string, scores: Record<string, number>, labelerName = 'ann'): StoredLabel {
  return {
    id: itemId,
    queueId: '1',
    ordinal: 0,
    itemId,
    labelerId: labelerName,
    labelerName,
    scores,
    comment: '',
    flagged: false,
    origin: 'queue',
    createdAt: '2026-12-05T00:00:00Z',
    updatedAt: '2026-12-05T00:00:00Z',
  };
}

function content(itemId: string, value: number): ItemScore {
  return { itemId, sim: 'retrieval', source: 'rule', metric: 'content', value, detail: null };
}

describe('versusMachines', () => {
  it('compares a pitfall criterion with the content score turned the same way as the others', () => {
    // The worse the content score, the worse the form and the likelier an invented outcome.
    const items: [string, number, number, number][] = [
      ['a', 0.95, 5, 0],
      ['b', 0.8, 4, 0],
      ['c', 0.4, 2, 1],
      ['d', 0.1, 1, 1],
    ];
    const result = versusMachines(
      { criteria: [FORMAT, INVENTED] },
      items.map(([item, , format, invented]) =>
        label(item, { format, 'invented-outcome': invented }),
      ),
      [],
      items.map(([item, score]) => content(item, score)),
      null,
    );
    expect(result.humanVsRules['format']?.spearman).toBeCloseTo(1, 12);
    // Both agree with the rules: a pitfall seen where the content score is low is agreement. The
    // humans' two ties against four distinct scores: ranks (1.5, 1.5, 3.5, 3.5) vs (1, 2, 3, 4).
    expect(result.humanVsRules['invented-outcome']?.spearman).toBeCloseTo(2 / Math.sqrt(5), 12);
    expect(result.humanVsJudge).toEqual({});
  });

  it('ranks the values as they are for ρ, and counts scale points for κ', () => {
    // Two labelers each; a's median falls between two points. walk 47: ρ taken on the rounded
    // points turned a pitfall's +0.74 into −0.33.
    const labels = [
      label('a', { format: 4 }),
      label('a', { format: 5 }),
      label('b', { format: 5 }),
      label('b', { format: 5 }),
      label('c', { format: 3 }),
      label('c', { format: 3 }),
    ];
    const scores = [content('a', 0.9), content('b', 0.7), content('c', 0.2)];
    const result = versusMachines({ criteria: [FORMAT] }, labels, [], scores, null).humanVsRules[
      'format'
    ];
    // Values (4.5, 5, 3) against (4.6, 3.8, 1.8): ranks (2, 3, 1) vs (3, 2, 1). On the points,
    // (5, 5, 3) against (5, 4, 2), it would read 0.87.
    expect(result?.spearman).toBeCloseTo(0.5, 12);
    // κ on the points: one of three agrees, 2/9 by chance.
    expect(result?.kappa.nominal).toBeCloseTo(1 / 7, 12);
    expect(result?.pairs).toBe(3);
  });
});

describe('the agreement of a queue’s labels', () => {
  // Two labelers on six items, agreeing on most points of two criteria.
  const labels = ['a', 'b', 'c', 'd', 'e', 'f'].flatMap((item, i) => [
    label(item, { format: 1 + (i % 5), facts: 5 - (i % 3) }, 'ann'),
    label(item, { format: 1 + ((i + (i === 2 ? 1 : 0)) % 5), facts: 5 - (i % 3) }, 'bob'),
  ]);

  it('is the CLI’s report with its bootstrap, whatever order the labels are read in', () => {
    const report = labelerAgreement(ratingsOf(labels));
    expect(report).toEqual(
      agreementReport(ratingsOf(labels.toReversed()), { bootstrap: AGREEMENT_BOOTSTRAP }),
    );
    expect(report.intervals?.ordinal.resamples).toBe(1000);
    // Asked again in another order: the same report, kept rather than bootstrapped again.
    expect(labelerAgreement(ratingsOf(labels.toReversed()))).toBe(report);
  });

  it('compares with the rules by item, so the labels’ order does not move an interval', () => {
    const scores = ['a', 'b', 'c', 'd', 'e', 'f'].map((item, i) =>
      content(item, ((i * 7) % 10) / 10),
    );
    const forward = versusMachines({ criteria: [FORMAT] }, labels, [], scores, null);
    const backward = versusMachines({ criteria: [FORMAT] }, labels.toReversed(), [], scores, null);
    expect(backward).toEqual(forward);
    expect(forward.humanVsRules['format']?.pairs).toBe(6);
  });
});
