import { describe, expect, it } from 'vitest';
import { LeaderboardCell, type ItemScore } from '@terrarium/schema';
import { buildBench } from '../build-bench';
import { readSources } from '../real-data.testkit';
import { scoreItem } from '../score-item';
import { compareRuns } from './compare-runs';
import { leaderboard } from './leaderboard';

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
      ['macro', 25, 1, 2],
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

  it('shows what got better from an empty-output run to the replay, with separated intervals', () => {
    const comparison = compareRuns(
      { scores: empty, items: bench },
      { scores: replay, items: bench },
      { bootstrap: 200, seed: 1, top: 3 },
    );
    const overall = comparison.cells.find(
      (cell) => cell.metric === 'content' && cell.task === 'overall',
    );
    expect(overall?.after?.mean).toBe(100);
    expect(overall?.separated).toBe(true);
    expect(overall?.delta).toBeGreaterThan(80);
    expect(comparison.improved).toHaveLength(3);
    expect(comparison.improved[0]?.delta).toBe(100);
    expect(comparison.regressed).toEqual([]);
  });
});
