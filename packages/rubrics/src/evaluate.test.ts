import {
  classifyObservation,
  perturb,
  PERTURBATIONS,
  scoreClassified,
  type ScoringItem,
} from '@terrarium/fidelity';
import { loadItems } from '@terrarium/fidelity/testing';
import { DOMAINS } from '@terrarium/schema';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultRuleSet } from './default-rule-sets';
import { compileRuleSet, type RewardItem } from './evaluate';
import { RuleSet, type RuleSetInput } from './rule-set';

/** Real predictions of varied quality: every perturbation of every real observation. */
function perturbedItems(items: readonly ScoringItem[]): RewardItem[] {
  const out: RewardItem[] = [];
  items.forEach((item, i) => {
    const historyText = [
      ...item.history.flatMap((t) => [t.action, t.observation]),
      item.action,
    ].join('\n');
    const otherStep = items.find((other, j) => j !== i && other.tool === item.tool)?.real ?? null;
    for (const kind of PERTURBATIONS) {
      const prediction = perturb(kind, { real: item.real, historyText, otherStep });
      if (prediction === null) continue;
      out.push({
        prediction,
        reference: item.real,
        history: item.history,
        action: item.action,
        domain: 'tool',
        kind: item.kind,
      });
    }
  });
  return out;
}

const clip = (value: number) => Math.min(1, Math.max(0, value));

describe('default rule sets on real tau2 airline and tau-bench items', () => {
  let items: RewardItem[] = [];
  beforeAll(async () => {
    const airline = await loadItems('tau2/airline');
    const v1 = await loadItems('tau-bench-v1/airline');
    items = perturbedItems([...airline.slice(0, 120), ...v1.slice(0, 60)]);
  }, 120_000);

  it('score exactly the fidelity content score, in every domain', { timeout: 120_000 }, () => {
    expect(items.length).toBeGreaterThan(500);
    const expected = items.map((item) =>
      clip(
        scoreClassified(
          item.prediction,
          classifyObservation(item.reference, item.history ?? [], item.action ?? ''),
        ).score,
      ),
    );
    // Not a constant: the perturbations spread the scores.
    expect(new Set(expected.map((v) => v.toFixed(2))).size).toBeGreaterThan(20);
    for (const domain of DOMAINS) {
      const compiled = compileRuleSet(defaultRuleSet(domain));
      const got = items.map((item) => compiled.scoreLocally(item).score);
      expect(got).toEqual(expected);
    }
  });

  it(
    're-weighting the content classes with the default weights changes nothing',
    { timeout: 60_000 },
    () => {
      const compiled = compileRuleSet(
        RuleSet.parse({
          name: 'reweighted',
          rules: [
            {
              id: 'content',
              type: 'content',
              weights: { deterministic: 4, structure: 3, 'numeric-live': 2 },
              contradictionFactor: 0.75,
            },
          ],
        }),
      );
      const plain = compileRuleSet(defaultRuleSet('tool'));
      for (const item of items.slice(0, 300))
        expect(compiled.scoreLocally(item).score).toBeCloseTo(
          plain.scoreLocally(item).score ?? Number.NaN,
          12,
        );
    },
  );
});

const ORDER = '{"order_id": "#W9583042", "status": "delivered", "total": 154.75}';
const item: RewardItem = {
  prediction: '{"order_id": "#W9583042", "status": "pending", "total": 154.75}',
  reference: ORDER,
  history: [
    { action: 'get_user_details {"user_id":"mei_7272"}', observation: '{"orders": ["#W9583042"]}' },
  ],
  action: 'get_order_details {"order_id":"#W9583042"}',
  domain: 'tool',
};

function compile(input: RuleSetInput) {
  return compileRuleSet(RuleSet.parse(input));
}

describe('rules', () => {
  it('threshold, not and scope shape a rule', () => {
    const reward = compile({
      name: 'shaped',
      rules: [
        { id: 'exact', type: 'metric', metric: 'exact-match', weight: 0 },
        { id: 'f1-above-half', type: 'metric', metric: 'token-f1', threshold: 0.5 },
        { id: 'not-json', type: 'metric', metric: 'json-validity', not: true },
        {
          id: 'terminal-only',
          type: 'metric',
          metric: 'exact-match',
          scope: { domains: ['terminal'] },
        },
        {
          id: 'order-tool',
          type: 'pattern',
          pattern: '^get_order',
          target: 'action',
          scope: { tools: ['get_order_details'] },
        },
      ],
    }).scoreLocally(item);
    expect(reward.breakdown).toEqual([
      { id: 'exact', kind: 'rule', weight: 0, score: 0 },
      { id: 'f1-above-half', kind: 'rule', weight: 1, score: 1 },
      { id: 'not-json', kind: 'rule', weight: 1, score: 0 },
      { id: 'terminal-only', kind: 'rule', weight: 1, score: null, detail: 'out of scope' },
      { id: 'order-tool', kind: 'rule', weight: 1, score: 1 },
    ]);
    // (1 + 0 + 1) / 3: the weight-0 and out-of-scope rules are not counted.
    expect(reward.score).toBeCloseTo(2 / 3, 12);
  });

  it('a gate rule at 0 zeroes the item', () => {
    const reward = compile({
      name: 'gated',
      rules: [
        { id: 'f1', type: 'metric', metric: 'token-f1' },
        { id: 'delivered', type: 'pattern', pattern: 'delivered', weight: 0 },
      ],
      combine: { gate: 'delivered' },
    }).scoreLocally(item);
    expect(reward.score).toBe(0);
  });
});

describe('criteria: reward = Σ w·c / Σ|w|', () => {
  const rubric: RuleSetInput = {
    name: 'rubric',
    rules: [{ id: 'status', type: 'pattern', pattern: '"status": "delivered"', weight: 0 }],
    criteria: [
      { id: 'status-right', text: 'Status matches?', category: 'essential', rule: 'status' },
      { id: 'format', text: 'Same JSON form?', category: 'important', scale: { min: 1, max: 5 } },
      { id: 'invents', text: 'Invents a refund?', category: 'pitfall' },
    ],
    combine: { rules: 0, criteria: 1 },
  };

  it('weights by category, pitfalls negative, judge points normalized on their scale', async () => {
    const reward = await compile(rubric).score(item, {
      judge: async (_item, criteria) => {
        expect(criteria.map((c) => c.id)).toEqual(['format', 'invents']);
        return new Map([
          ['format', 4],
          ['invents', 1],
        ]);
      },
    });
    expect(reward.breakdown.filter((e) => e.kind === 'criterion')).toEqual([
      { id: 'status-right', kind: 'criterion', score: 0, weight: 1 },
      { id: 'format', kind: 'criterion', score: 0.75, weight: 0.7 },
      { id: 'invents', kind: 'criterion', score: 1, weight: -0.9 },
    ]);
    // (1·0 + 0.7·0.75 − 0.9·1) / (1 + 0.7 + 0.9) < 0 → clipped to 0.
    expect(reward.score).toBe(0);
    const clean = await compile(rubric).score(
      { ...item, prediction: ORDER },
      {
        judge: async () =>
          new Map([
            ['format', 5],
            ['invents', 0],
          ]),
      },
    );
    expect(clean.score).toBeCloseTo((1 + 0.7) / 2.6, 12);
  });

  it('without a judge, judged criteria are n/a and the rest still scores', async () => {
    const reward = await compile(rubric).score({ ...item, prediction: ORDER });
    expect(reward.score).toBe(1);
  });

  it('hybrid = (rules·R + criteria·C) / (rules + criteria)', async () => {
    const reward = await compile({
      ...rubric,
      rules: [
        { id: 'status', type: 'pattern', pattern: '"status": "delivered"', weight: 0 },
        { id: 'f1', type: 'metric', metric: 'token-f1' },
      ],
      combine: { rules: 3, criteria: 1 },
    }).score(item, {
      judge: async () =>
        new Map([
          ['format', 5],
          ['invents', 0],
        ]),
    });
    const f1 = reward.breakdown.find((e) => e.id === 'f1')?.score ?? NaN;
    expect(reward.score).toBeCloseTo((3 * f1 + 1 * (0.7 / 2.6)) / 4, 12);
  });
});
