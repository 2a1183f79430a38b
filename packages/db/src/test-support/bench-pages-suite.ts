import {
  scoreGridUnits,
  type BenchRun,
  type ItemScore,
  type RunPrediction,
} from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedUnit, Store } from '../store';
import { buildBenchItem, buildBenchManifest } from '../testing';
import type { StoreHarness, StoreLocation } from './harnesses';

/**
 * 12 items over two tasks, 0-9 in `test` (even: task `a`, odd: task `b`; item n has n turns of
 * history and turn index n), 10-11 in `dev`.
 */
const ITEMS = Array.from({ length: 12 }, (_, n) =>
  buildBenchItem(n, {
    task: n % 2 === 0 ? 'a' : 'b',
    split: n >= 10 ? 'dev' : 'test',
    turnIndex: n,
    history: Array.from({ length: n }, () => buildBenchItem(n).history[0]).flatMap((turn) =>
      turn === undefined ? [] : [turn],
    ),
  }),
);

/** Values that do not add up exactly in floating point, so the order of the sum shows. */
const CONTENT = [0.1, 0.7, 0.2, 0.3, null, 0.6, 0.1, 0.9, 0.45, 0.05];

function unit(runId: string, n: number, sim: string, extra: Partial<RunPrediction> = {}) {
  const itemId = `item-${n}`;
  const prediction: RunPrediction = {
    runId,
    itemId,
    sim,
    observation: { kind: 'text', content: `predicted ${n}`, callId: null },
    reasoning: null,
    provenance: { backend: 'replay', cache: 'hit' },
    latencyMs: 10 + n,
    usage: { inputTokens: n, outputTokens: 2 * n, costUsd: 0 },
    error: null,
    ...extra,
  };
  const scores: ItemScore[] =
    prediction.error === null
      ? [
          {
            itemId,
            sim,
            source: 'rule',
            metric: 'content',
            value: CONTENT[n] ?? null,
            detail: null,
          },
          {
            itemId,
            sim,
            source: 'rule',
            metric: 'exact-match',
            value: n % 3 === 0 ? 1 : 0,
            detail: null,
          },
        ]
      : [];
  const recorded: RecordedUnit = { prediction, scores };
  return recorded;
}

/** The non-null content values of items `ids`, in that order. */
function contentOf(ids: number[]): number[] {
  return ids.flatMap((n) => {
    const value = CONTENT[n];
    return value === null || value === undefined ? [] : [value];
  });
}

/** The grid sum of values (what the totals hold): the same in any order. */
function gridSum(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += scoreGridUnits(value);
  return sum;
}

const ascending = (values: readonly number[]) => values.toSorted((a, b) => a - b);

export function describeBenchPagesSuite(harness: StoreHarness): void {
  describe(`${harness.name}: bench pages in SQL and batched run writes`, () => {
    let location: StoreLocation;
    let store: Store;
    let run: BenchRun;
    beforeAll(async () => {
      location = await harness.createLocation();
      store = await location.open();
      await store.createBench(buildBenchManifest('pages', ITEMS), ITEMS);
      run = await store.createBenchRun({
        bench: 'pages',
        sims: ['replay', 'retrieval'],
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      });
    }, 120_000);
    afterAll(async () => {
      await store.close();
      await location.dispose();
    }, 60_000);

    it('records a batch in one transaction: one unit that cannot be stored leaves none of it', async () => {
      const broken = unit(run.id, 2, 'replay');
      const badScore = broken.scores[0];
      if (badScore === undefined) throw new Error('no score to break');
      // value 2 breaks the 0-1 check in the batch's last statement but one.
      const units = [
        unit(run.id, 0, 'replay'),
        unit(run.id, 1, 'replay'),
        { ...broken, scores: [{ ...badScore, value: 2 }] },
      ];
      await expect(store.recordPredictions(units)).rejects.toThrow(/check constraint/);
      expect((await store.listPredictions(run.id, { offset: 0, limit: 100 })).total).toBe(0);
      expect((await store.listScores(run.id, { offset: 0, limit: 100 })).total).toBe(0);
      expect(await store.getBenchRun(run.id)).toMatchObject({ done: 0, failed: 0 });
      await expect(
        store.recordPredictions([unit(run.id, 0, 'replay'), unit(run.id, 0, 'onnx:/elsewhere')]),
      ).rejects.toThrow(/does not run onnx:\/elsewhere/);
      expect((await store.listPredictions(run.id, { offset: 0, limit: 100 })).total).toBe(0);
    }, 60_000);

    it('records each unit of a batch once, counts failures and usage, and finishes the run', async () => {
      const replay = Array.from({ length: 10 }, (_, n) => unit(run.id, n, 'replay'));
      expect(await store.recordPredictions(replay.slice(0, 6))).toEqual({ recorded: 6, failed: 0 });
      // A retried batch overlapping the first records only the new units.
      expect(await store.recordPredictions(replay.slice(4))).toEqual({ recorded: 4, failed: 0 });
      const retrieval = Array.from({ length: 9 }, (_, n) =>
        unit(run.id, n, 'retrieval', n === 3 ? { error: 'endpoint down' } : {}),
      );
      expect(await store.recordPredictions(retrieval)).toEqual({ recorded: 9, failed: 1 });
      expect(await store.getBenchRun(run.id)).toMatchObject({
        status: 'queued',
        done: 18,
        failed: 1,
        // A failed unit's usage counts too (what the endpoint billed).
        usage: { inputTokens: 45 + 36, outputTokens: 2 * (45 + 36) },
      });
      expect(await store.pendingWork(run.id, 'retrieval', 10)).toEqual(['item-9']);
    }, 60_000);

    it('keeps totals per simulator, score and task of the split: count, grid sum and nulls', async () => {
      const totals = await store.runScoreTotals(run.id);
      if (totals === null) throw new Error('no totals');
      expect(totals.itemsPerTask.toSorted((x, y) => (x.task < y.task ? -1 : 1))).toEqual([
        { task: 'a', items: 5 },
        { task: 'b', items: 5 },
      ]);
      const content = (sim: string, task: string) =>
        totals.cells.find(
          (cell) => cell.sim === sim && cell.metric === 'content' && cell.task === task,
        );
      // Written in three batches, summed exactly: the grid sum of the values in any order.
      expect(content('replay', 'a')).toEqual({
        sim: 'replay',
        source: 'rule',
        metric: 'content',
        task: 'a',
        n: 4,
        gridSum: gridSum(contentOf([0, 2, 4, 6, 8])),
        nulls: 1,
      });
      expect(content('retrieval', 'b')).toMatchObject({
        n: 3,
        gridSum: gridSum(contentOf([1, 5, 7])),
        nulls: 0,
      });
      expect(totals.cells).toHaveLength(2 * 2 * 2);
    }, 60_000);

    it('pages the values a bootstrap resamples, items of the split in build order', async () => {
      const seen = new Map<string, number[]>();
      const cursors: (number | null)[] = [];
      let after: number | null = null;
      do {
        const page = await store.runScoreValues(run.id, { after, limit: 4 });
        for (const group of page.groups) {
          const key = `${group.sim} ${group.metric} ${group.task}`;
          seen.set(key, [...(seen.get(key) ?? []), ...group.values]);
        }
        after = page.next;
        cursors.push(after);
      } while (after !== null);
      // Ten test items, four a page: 0-3, 4-7, 8-9; the dev items 10-11 are not read.
      expect(cursors).toHaveLength(3);
      expect(cursors.at(-1)).toBeNull();
      expect(ascending(seen.get('replay content a') ?? [])).toEqual(
        ascending(contentOf([0, 2, 4, 6, 8])),
      );
      expect(ascending(seen.get('retrieval content b') ?? [])).toEqual(
        ascending(contentOf([1, 5, 7])),
      );
      expect(ascending(seen.get('replay exact-match b') ?? [])).toEqual([0, 0, 0, 1, 1]);
      expect(seen.size).toBe(8);
    }, 60_000);

    it('pages a cell worst first in SQL: missing first, then by value, then item id', async () => {
      const page = await store.listCellScores(run.id, {
        sim: 'replay',
        source: 'rule',
        metric: 'content',
        task: null,
        offset: 0,
        limit: 4,
      });
      expect(page.total).toBe(10);
      expect(page.rows.map((row) => [row.itemId, row.value])).toEqual([
        ['item-4', null],
        ['item-9', 0.05],
        ['item-0', 0.1],
        ['item-6', 0.1],
      ]);
      const [first] = page.rows;
      expect(first?.item).toEqual(ITEMS[4]);
      expect(first?.prediction).toEqual({
        observation: { kind: 'text', content: 'predicted 4', callId: null },
        latencyMs: 14,
        error: null,
      });
      expect(first?.scores).toEqual({ 'rule:content': null, 'rule:exact-match': 0 });
      const taskB = await store.listCellScores(run.id, {
        sim: 'replay',
        source: 'rule',
        metric: 'content',
        task: 'b',
        offset: 1,
        limit: 10,
      });
      expect(taskB.total).toBe(5);
      expect(taskB.rows.map((row) => row.itemId)).toEqual(['item-3', 'item-5', 'item-1', 'item-7']);
    }, 60_000);

    it('counts each score along the chart axes as it writes: no point per item read', async () => {
      const slices = await store.runScoreSlices(run.id, { source: 'rule', metric: 'exact-match' });
      const of = (sim: string, axis: string) =>
        slices
          .filter((slice) => slice.sim === sim && slice.axis === axis)
          .map(({ x, rows, n, gridSum: units }) => [x, rows, n, units]);
      const one = scoreGridUnits(1);
      // Exact match is 1 on items 0, 3, 6 and 9: the last of ten bins holds 100.
      expect(of('replay', 'bin')).toEqual([
        [0, 6, 6, 0],
        [9, 4, 4, 4 * one],
      ]);
      // Item n shows n turns at turn index n; it used 3n tokens and took 10 + n ms.
      expect(of('replay', 'turn')).toEqual(
        Array.from({ length: 10 }, (_, n) => [n, 1, 1, n % 3 === 0 ? one : 0]),
      );
      expect(of('replay', 'history-shift')).toEqual([[0, 10, 10, 4 * one]]);
      expect(of('replay', 'tokens')).toEqual([
        [0, 1, 1, one],
        [2, 1, 1, 0],
        [3, 1, 1, 0],
        [4, 3, 3, one],
        [5, 4, 4, 2 * one],
      ]);
      expect(of('replay', 'latency')).toEqual([
        [4, 6, 6, 2 * one],
        [5, 4, 4, 2 * one],
      ]);
      // The failed unit (item 3) has no scores: retrieval's eight are 1 on items 0 and 6.
      expect(of('retrieval', 'bin')).toEqual([
        [0, 6, 6, 0],
        [9, 2, 2, 2 * one],
      ]);
    }, 60_000);

    it('caches a leaderboard only for a finished run and only for the scores it came from', async () => {
      const key = { resamples: 100, seed: 0 };
      const cells = [
        {
          sim: 'replay',
          task: 'overall',
          source: 'rule' as const,
          metric: 'content',
          mean: 40,
          ciLow: 20,
          ciHigh: 60,
          n: 9,
          missing: 0,
        },
      ];
      const version = (await store.runScoreTotals(run.id))?.scoresVersion ?? -1;
      expect(await store.putRunLeaderboard(run.id, key, version, cells)).toBe(false);
      expect(await store.recordPredictions([unit(run.id, 9, 'retrieval')])).toEqual({
        recorded: 1,
        failed: 0,
      });
      expect(await store.getBenchRun(run.id)).toMatchObject({
        status: 'done',
        done: 19,
        failed: 1,
      });
      // The last unit changed the scores: the version read before it no longer holds.
      expect(await store.putRunLeaderboard(run.id, key, version, cells)).toBe(false);
      const current = (await store.runScoreTotals(run.id))?.scoresVersion ?? -1;
      expect(await store.putRunLeaderboard(run.id, key, current, cells)).toBe(true);
      expect(await store.getRunLeaderboard(run.id, key)).toEqual(cells);
      expect(await store.getRunLeaderboard(run.id, { resamples: 1000, seed: 0 })).toBeNull();
      // Re-judging after the end changes the scores: the cached cells are not served again.
      await store.addScores(run.id, [
        {
          itemId: 'item-0',
          sim: 'replay',
          source: 'judge',
          metric: 'overall',
          value: 0.5,
          detail: null,
        },
      ]);
      expect(await store.getRunLeaderboard(run.id, key)).toBeNull();
      // …and the running totals are recomputed from the scores, the new judge score included.
      const judge = (await store.runScoreTotals(run.id))?.cells.filter(
        (cell) => cell.source === 'judge',
      );
      expect(judge).toEqual([
        {
          sim: 'replay',
          source: 'judge',
          metric: 'overall',
          task: 'a',
          n: 1,
          gridSum: scoreGridUnits(0.5),
          nulls: 0,
        },
      ]);
    }, 60_000);
  });
}
