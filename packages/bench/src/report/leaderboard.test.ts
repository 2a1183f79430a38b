import { describe, expect, it } from 'vitest';
import { gridMean, LeaderboardCell, scoreGridUnits, type ItemScore } from '@terrarium/schema';
import { buildBench } from '../build-bench';
import { readSources } from '../real-data.testkit';
import { scoreItem } from '../score-item';
import { compareRuns } from './compare-runs';
import { canonicalJson, seededRandom, seedFromText } from '../hash';
import { groupIntervals, leaderboard } from './leaderboard';

function score(itemId: string, value: number | null, extra: Partial<ItemScore> = {}): ItemScore {
  return { itemId, sim: 'x', source: 'rule', metric: 'content', value, detail: null, ...extra };
}

const items = [
  { id: 'a', task: 't1' },
  { id: 'b', task: 't1' },
  { id: 'c', task: 't2' },
];

describe('leaderboard', () => {
  it('gives task means, the sample-weighted overall and the macro mean, ×100', () => {
    const cells = leaderboard([score('a', 1), score('b', 0.5), score('c', 0)], items, {
      bootstrap: 0,
      seed: 1,
    });
    expect(cells.map((cell) => [cell.task, cell.mean, cell.n, cell.missing])).toEqual([
      ['t1', 75, 2, 0],
      ['t2', 0, 1, 0],
      ['overall', 50, 3, 0],
      ['macro', 37.5, 3, 0],
    ]);
    expect(cells.every((cell) => LeaderboardCell.safeParse(cell).success)).toBe(true);
  });

  it('counts unparseable judge answers and items without a score as missing, not rule n/a', () => {
    const cells = leaderboard(
      [
        score('a', null, { source: 'judge', metric: 'overall' }),
        score('b', 0.25, { source: 'judge', metric: 'overall' }),
        score('a', null, { metric: 'json-validity' }),
        score('b', 1, { metric: 'json-validity' }),
      ],
      items,
      { bootstrap: 0, seed: 1 },
    );
    const judge = cells.filter((cell) => cell.source === 'judge');
    expect(judge.map((cell) => [cell.task, cell.mean, cell.n, cell.missing])).toEqual([
      ['t1', 25, 1, 1],
      ['t2', null, 0, 1],
      ['overall', 25, 1, 2],
      // t2's only item has no judge score: a mean over tasks would be t1's alone.
      ['macro', null, 1, 2],
    ]);
    const rule = cells.find((cell) => cell.source === 'rule' && cell.task === 't1');
    expect([rule?.n, rule?.missing]).toEqual([1, 0]);
  });

  it('averages repeated judgings of one item into one sample', () => {
    const cells = leaderboard([score('a', 1), score('a', 0), score('b', 1)], items.slice(0, 2), {
      bootstrap: 0,
      seed: 1,
    });
    expect(cells[0]?.mean).toBe(75);
    expect(cells[0]?.n).toBe(2);
  });

  it('gives a seeded 95% bootstrap interval around the mean', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `i${i}`, task: 't' }));
    const scores = many.map((item, i) => score(item.id, i % 4 === 0 ? 0 : 1));
    const [cell] = leaderboard(scores, many, { bootstrap: 500, seed: 3 });
    expect(cell?.mean).toBe(75);
    expect(cell?.ciLow).toBeGreaterThan(55);
    expect(cell?.ciLow).toBeLessThan(75);
    expect(cell?.ciHigh).toBeGreaterThan(75);
    expect(cell?.ciHigh).toBeLessThanOrEqual(90);
    expect(leaderboard(scores, many, { bootstrap: 500, seed: 3 })[0]).toEqual(cell);
    expect(leaderboard(scores, many, { bootstrap: 500, seed: 4 })[0]?.ciLow).not.toBe(cell?.ciLow);
  });
});

/** The nearest-rank 2.5% and 97.5% points of `values`, ×100. */
function interval(values: readonly number[]) {
  const sorted = values.toSorted((a, b) => a - b);
  const at = (p: number) => (sorted[Math.round(p * (sorted.length - 1))] ?? 0) * 100;
  return { low: at(0.025), high: at(0.975) };
}

describe('groupIntervals', () => {
  const strata = new Map([
    ['t1', [0.5, 0.25, 1, 0.75, 0, 1, 0.125]],
    ['t2', [0.9, 0.1, 0.3]],
    ['t3', [0.6]],
  ]);

  /** The stratified bootstrap spelled out with `seededRandom`: what the inlined loop must give. */
  function reference(resamples: number, seed: number) {
    const random = seededRandom(seedFromText(canonicalJson(['leaderboard-bootstrap', seed])));
    const tasks = ['t1', 't2', 't3'].map((task) =>
      [...(strata.get(task) ?? [])].toSorted((a, b) => a - b),
    );
    const estimates: Record<'t1' | 't2' | 'overall' | 'macro', number[]> = {
      t1: [],
      t2: [],
      overall: [],
      macro: [],
    };
    for (let r = 0; r < resamples; r++) {
      const sums = tasks.map((values) => {
        let sum = 0;
        for (let i = 0; i < values.length; i++) {
          sum += values[Math.floor(random() * values.length)] ?? 0;
        }
        return sum;
      });
      const means = sums.map((sum, t) => sum / (tasks[t]?.length ?? 1));
      estimates.t1.push(means[0] ?? 0);
      estimates.t2.push(means[1] ?? 0);
      estimates.overall.push(sums.reduce((a, b) => a + b, 0) / 11);
      estimates.macro.push(means.reduce((a, b) => a + b, 0) / 3);
    }
    return {
      t1: interval(estimates.t1),
      t2: interval(estimates.t2),
      t3: { low: null, high: null },
      overall: interval(estimates.overall),
      macro: interval(estimates.macro),
    };
  }

  it('is one stratified resampling with seededRandom’s sequence, values in ascending order', () => {
    const intervals = groupIntervals(['t1', 't2', 't3'], strata, {
      bootstrap: 400,
      seed: 7,
    });
    expect(Object.fromEntries(intervals)).toEqual(reference(400, 7));
  });

  it('depends on the values of each task, not the order they come in', () => {
    const shuffled = new Map([...strata].map(([task, values]) => [task, values.toReversed()]));
    expect(groupIntervals(['t1', 't2', 't3'], shuffled, { bootstrap: 200, seed: 1 })).toEqual(
      groupIntervals(['t1', 't2', 't3'], strata, { bootstrap: 200, seed: 1 }),
    );
  });

  it('gives no intervals without resamples or with fewer than two values', () => {
    const none = { low: null, high: null };
    expect(Object.fromEntries(groupIntervals(['t1'], strata, { bootstrap: 0, seed: 1 }))).toEqual({
      t1: none,
      overall: none,
      macro: none,
    });
    expect(Object.fromEntries(groupIntervals(['t3'], strata, { bootstrap: 100, seed: 1 }))).toEqual(
      { t3: none, overall: none, macro: none },
    );
  });
});

describe('leaderboard means on the score grid', () => {
  it('are exact sums: any order of the scores gives the same cells to the last bit', () => {
    // Tenths do not add up exactly in floating point: 0.1 + 0.2 + 0.3 differs by order.
    const many = Array.from({ length: 30 }, (_, i) => ({
      id: `i${String(i).padStart(2, '0')}`,
      task: `t${i % 2}`,
    }));
    const scores = many.map((item, i) => score(item.id, ((i * 7) % 10) / 10));
    const forward = leaderboard(scores, many, { bootstrap: 50, seed: 2 });
    expect(leaderboard(scores.toReversed(), many, { bootstrap: 50, seed: 2 })).toEqual(forward);
    const units = scores.reduce((sum, entry) => sum + scoreGridUnits(entry.value ?? 0), 0);
    expect(forward.find((cell) => cell.task === 'overall')?.mean).toBe(gridMean(units, 30) * 100);
  });
});

const { items: bench } = buildBench({
  trajectories: await readSources(['tau2-airline', 'swe-agent']),
  name: 'lb',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 2,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: [],
});
const replay = bench.flatMap((item) => scoreItem(item, 'sim', item.real));
const empty = bench.flatMap((item) =>
  scoreItem(item, 'sim', { kind: 'text', content: '', callId: null }),
);

describe('leaderboard and compareRuns on real items', () => {
  it('puts the replay at 100 on every metric and task, with a degenerate interval', () => {
    const cells = leaderboard(replay, bench, { bootstrap: 200, seed: 1 });
    const content = cells.filter((cell) => cell.metric === 'content');
    expect(content.map((cell) => [cell.task, cell.mean, cell.ciLow, cell.ciHigh, cell.n])).toEqual([
      ['swe-agent/ctf', 100, 100, 100, 43],
      ['swe-agent/swe', 100, 100, 100, 64],
      ['tau2-bench/airline', 100, 100, 100, 84],
      ['overall', 100, 100, 100, 191],
      ['macro', 100, 100, 100, 191],
    ]);
    expect(cells.every((cell) => cell.mean === null || cell.mean === 100)).toBe(true);
  });

  it('shows what got better from an empty-output run to the replay, with the paired interval of the difference', () => {
    const comparison = compareRuns(
      { scores: empty, items: bench },
      { scores: replay, items: bench },
      { bootstrap: 200, seed: 1, top: 3 },
    );
    const overall = comparison.cells.find(
      (cell) => cell.metric === 'content' && cell.task === 'overall',
    );
    expect(overall?.after?.mean).toBe(100);
    expect(overall?.significant).toBe(true);
    expect(overall?.delta).toBeGreaterThan(80);
    // The difference's interval holds the difference of the means, and lies above 0.
    expect(overall?.deltaLow).toBeGreaterThan(0);
    expect(overall?.deltaLow).toBeLessThan(overall?.delta ?? 0);
    expect(overall?.deltaHigh).toBeGreaterThan(overall?.delta ?? 0);
    // Other scores than the compared one get no interval of their difference.
    expect(
      comparison.cells.filter((cell) => cell.metric !== 'content' && cell.deltaLow !== null),
    ).toEqual([]);
    expect(comparison.improved).toHaveLength(3);
    expect(comparison.improved[0]?.delta).toBe(100);
    expect(comparison.regressed).toEqual([]);
    // Each listed item is named by where it was taken from, as its bench item says.
    for (const moved of comparison.improved) {
      const item = bench.find((candidate) => candidate.id === moved.itemId);
      expect(item).toBeDefined();
      expect(moved).toMatchObject({
        task: item?.task,
        trajectory: item?.origin.trajectory,
        turnIndex: item?.turnIndex,
        totalTurns: item?.totalTurns,
      });
      expect(moved.action.length).toBeGreaterThan(0);
      expect(moved.action.length).toBeLessThanOrEqual(120);
    }
  });

  it('calls a small change on every item significant where the two runs’ intervals overlap', () => {
    // Two simulators that answer each real observation cut short: the second keeps a little more.
    const cut = (share: number) =>
      bench.flatMap((item) => {
        const text = item.real.content;
        const kept = text.slice(0, Math.ceil(text.length * share));
        return scoreItem(item, 'sim', { kind: 'text', content: kept, callId: null });
      });
    const comparison = compareRuns(
      { scores: cut(0.5), items: bench },
      { scores: cut(0.55), items: bench },
      { bootstrap: 1000, seed: 1, top: 3 },
    );
    const overall = comparison.cells.find(
      (cell) => cell.metric === 'content' && cell.task === 'overall',
    );
    const figures = [
      overall?.before?.ciLow,
      overall?.before?.ciHigh,
      overall?.after?.ciLow,
      overall?.after?.ciHigh,
      overall?.delta,
      overall?.deltaLow,
      overall?.deltaHigh,
    ].map((value) => Number((value ?? Number.NaN).toFixed(1)));
    // Before [23.2, 29.9] and after [27.9, 35.2] overlap; the difference, 5.1, has the interval
    // [3.0, 8.0]: every item gained a little, which the two intervals side by side cannot show.
    expect(figures).toEqual([23.2, 29.9, 27.9, 35.2, 5.1, 3, 8]);
    expect(overall?.significant).toBe(true);
  });

  it('marks no Δ significant between runs over different items, as a run canceled part way', () => {
    // The replay run stopped after a third of the items: its mean is over those alone.
    const scored = new Set(bench.slice(0, Math.floor(bench.length / 3)).map((item) => item.id));
    const canceled = replay.filter((entry) => scored.has(entry.itemId));
    const comparison = compareRuns(
      { scores: empty, items: bench },
      { scores: canceled, items: bench },
      { bootstrap: 200, seed: 1, top: 3 },
    );
    const overall = comparison.cells.find(
      (cell) => cell.metric === 'content' && cell.task === 'overall',
    );
    expect(overall?.after?.n).toBe(scored.size);
    expect(overall?.before?.n).toBe(bench.length);
    expect(overall?.delta).toBeGreaterThan(80);
    expect(overall).toMatchObject({
      sameItems: false,
      deltaLow: null,
      deltaHigh: null,
      significant: false,
    });
  });
});
