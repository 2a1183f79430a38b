// Test support only: the SQL read paths of the run page against the in-memory computation they
// replace, on a bench built from real tau2 runs (airline and retail), for PGlite and PostgreSQL.
import type { Store } from '@terrarium/db';
import { leaderboard as inMemoryLeaderboard, scoreItem } from '@terrarium/bench';
import {
  SCORE_BINS,
  scoreGridUnits,
  type BenchItem,
  type BenchRun,
  type ItemScore,
  type RunPrediction,
  type ScoreSlice,
} from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_AIRLINE, TAU2_RETAIL } from '../testing/sample-files';
import { buildBenchFromDatasets, cellItems, chartSlices } from './bench-service';
import { allBenchItems, readAll } from './read-all';
import { currentLeaderboard, LEADERBOARD_SEED, runLeaderboard } from './run-leaderboard';

// Names the run accepts; the predictions are made here: `retrieval` stands for a simulator that
// answers with the next item's real observation.
const SIMS = ['replay', 'retrieval'];
const CONTENT = { source: 'rule', metric: 'content' } as const;

function unitsOf(runId: string, items: readonly BenchItem[]) {
  return SIMS.flatMap((sim) =>
    items.map((item, index) => {
      // Real text, partly right.
      const predicted =
        sim === 'replay' ? item.real : (items[(index + 1) % items.length]?.real ?? item.real);
      const failed = sim === 'retrieval' && index % 9 === 4;
      const prediction: RunPrediction = {
        runId,
        itemId: item.id,
        sim,
        observation: failed ? null : predicted,
        reasoning: null,
        provenance: { backend: sim },
        latencyMs: (index % 13) + 0.5,
        usage: { inputTokens: index, outputTokens: index % 7, costUsd: 0 },
        error: failed ? 'endpoint down' : null,
      };
      return { prediction, scores: failed ? [] : scoreItem(item, sim, predicted) };
    }),
  );
}

/** Bit length of a non-negative integer: the cost buckets of the chart slices. */
function bitLength(value: number): number {
  return 32 - Math.clz32(Math.max(0, value));
}

function bySimAxisX(slices: Iterable<ScoreSlice>): ScoreSlice[] {
  return [...slices].toSorted((a, b) =>
    JSON.stringify([a.sim, a.axis, a.x]) < JSON.stringify([b.sim, b.axis, b.x]) ? -1 : 1,
  );
}

export function describeSqlRunPages(name: string, open: () => Promise<Store>): void {
  describe(`${name}: the run page's numbers from SQL equal the in-memory computation`, () => {
    let store: Store;
    let run: BenchRun;
    let items: BenchItem[];
    let predictions: RunPrediction[] = [];

    const storedScores = () =>
      readAll((offset, limit) => store.listScores(run.id, { offset, limit }));
    const expected = async (bootstrap: number) =>
      inMemoryLeaderboard(await storedScores(), items, { bootstrap, seed: LEADERBOARD_SEED });

    beforeAll(async () => {
      store = await open();
      for (const [file, dataset] of [
        [TAU2_AIRLINE, 'airline'],
        [TAU2_RETAIL, 'retail'],
      ] as const) {
        await importFiles(store, (await collectDataFiles([file])).map(readDataFile), { dataset });
      }
      await buildBenchFromDatasets(
        { store },
        {
          name: 'tau2',
          datasets: ['airline', 'retail'],
          sampling: { kind: 'agentworld' },
          seed: 3,
          devFraction: 0.25,
        },
      );
      run = await store.createBenchRun({
        bench: 'tau2',
        sims: SIMS,
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      });
      items = await allBenchItems(store, { name: 'tau2' }, 'test');
      predictions = unitsOf(run.id, items).map((unit) => unit.prediction);
    }, 240_000);
    afterAll(async () => {
      await store.close();
    }, 60_000);

    it('shows the means of what is scored so far while the run goes on, without intervals', async () => {
      expect(items.length).toBeGreaterThan(150);
      const units = unitsOf(run.id, items);
      const half = Math.floor(units.length * 0.43);
      for (let start = 0; start < half; start += 97) {
        await store.recordPredictions(units.slice(start, Math.min(half, start + 97)));
      }
      const running = await store.getBenchRun(run.id);
      if (running === null) throw new Error('the run is gone');
      expect(running.status).toBe('queued');
      const cells = await runLeaderboard(store, running, 1000);
      expect(cells.length).toBeGreaterThan(0);
      // The running totals are summed batch by batch on the score grid: exactly the means of
      // the scores stored so far, no intervals.
      expect(cells).toEqual(await expected(0));
      expect(await currentLeaderboard(store, running, 1000)).toEqual({
        cells,
        intervals: 'after-run',
      });
      expect(
        await store.getRunLeaderboard(run.id, { resamples: 1000, seed: LEADERBOARD_SEED }),
      ).toBeNull();
    }, 60_000);

    it('gives a finished run the same means, counts and bootstrap intervals, cached once', async () => {
      const units = unitsOf(run.id, items);
      const half = Math.floor(units.length * 0.43);
      for (let start = half; start < units.length; start += 256) {
        await store.recordPredictions(units.slice(start, start + 256));
      }
      const done = await store.getBenchRun(run.id);
      if (done === null) throw new Error('the run is gone');
      expect(done.status).toBe('done');
      const cells = await runLeaderboard(store, done, 300);
      const reference = await expected(300);
      expect(cells).toEqual(reference);
      const overall = cells.find(
        (cell) => cell.sim === 'retrieval' && cell.task === 'overall' && cell.metric === 'content',
      );
      // Not a degenerate case: fractional means, real intervals, items missing.
      expect(overall?.ciLow).not.toBeNull();
      expect(overall?.missing).toBeGreaterThan(0);
      expect(overall?.mean).not.toBe(Math.round(overall?.mean ?? 0));
      expect(
        await store.getRunLeaderboard(run.id, { resamples: 300, seed: LEADERBOARD_SEED }),
      ).toEqual(reference);
      expect(await currentLeaderboard(store, done, 300)).toEqual({
        cells: reference,
        intervals: 'ready',
      });
    }, 60_000);

    it('resamples on a worker thread as on this one: the same intervals', async () => {
      const done = await store.getBenchRun(run.id);
      if (done === null) throw new Error('the run is gone');
      const onWorker = await runLeaderboard(store, done, 200, { inlineDraws: 0 });
      expect(onWorker).toEqual(await expected(200));
    }, 60_000);

    it('recomputes after re-judging: unparseable judge answers count as missing', async () => {
      const judged: ItemScore[] = items.slice(0, 40).map((item, index) => ({
        itemId: item.id,
        sim: 'replay',
        source: 'judge',
        metric: 'overall',
        value: index % 5 === 0 ? null : (index % 4) / 4,
        detail: null,
      }));
      await store.addScores(run.id, judged);
      expect(
        await store.getRunLeaderboard(run.id, { resamples: 300, seed: LEADERBOARD_SEED }),
      ).toBeNull();
      const done = await store.getBenchRun(run.id);
      if (done === null) throw new Error('the run is gone');
      const cells = await runLeaderboard(store, done, 300);
      expect(cells).toEqual(await expected(300));
      const judge = cells.find((cell) => cell.source === 'judge' && cell.task === 'overall');
      expect([judge?.n, judge?.missing]).toEqual([32, items.length - 32]);
    }, 60_000);

    it('pages a cell worst first from SQL, in the order of the stored scores', async () => {
      const scores = await storedScores();
      const task = items[0]?.task ?? '';
      for (const cellTask of ['overall', task]) {
        // The reference: the stored order (simulator, item id), stably sorted worst first.
        const ranked = scores
          .filter(
            (score) =>
              score.sim === 'retrieval' &&
              score.source === 'rule' &&
              score.metric === 'content' &&
              (cellTask === 'overall' ||
                items.find((item) => item.id === score.itemId)?.task === task),
          )
          .toSorted((a, b) =>
            a.value === null || b.value === null
              ? a.value === b.value
                ? 0
                : a.value === null
                  ? -1
                  : 1
              : a.value - b.value,
          );
        const page = await cellItems(
          { store },
          { runId: run.id, sim: 'retrieval', task: cellTask, score: CONTENT, offset: 5, limit: 20 },
        );
        expect(page.total).toBe(ranked.length);
        expect(page.rows.map((row) => [row.itemId, row.value])).toEqual(
          ranked
            .slice(5, 25)
            .map((score) => [score.itemId, score.value === null ? null : score.value * 100]),
        );
        const first = page.rows[0];
        const item = items.find((entry) => entry.id === first?.itemId);
        expect(first?.historyLength).toBe(item?.history.length);
        expect(first?.scores['rule:content']).toBe(first?.value);
      }
    }, 60_000);

    it("gives a chart's slices equal to the ones counted from the whole run", async () => {
      const scores = await storedScores();
      const byUnit = new Map(predictions.map((p) => [`${p.sim}\u0000${p.itemId}`, p]));
      const itemById = new Map(items.map((item) => [item.id, item]));
      const counted = new Map<string, ScoreSlice>();
      for (const score of scores) {
        if (score.source !== CONTENT.source || score.metric !== CONTENT.metric) continue;
        const item = itemById.get(score.itemId);
        const prediction = byUnit.get(`${score.sim}\u0000${score.itemId}`);
        if (item === undefined || prediction === undefined) continue;
        const value = score.value;
        const axes: [ScoreSlice['axis'], number | null][] = [
          [
            'bin',
            value === null
              ? null
              : Math.min(SCORE_BINS - 1, Math.floor((value * 100) / (100 / SCORE_BINS))),
          ],
          ['turn', item.turnIndex],
          ['history', item.history.length],
          ['history-shift', item.history.length - item.turnIndex],
          ['tokens', bitLength(prediction.usage.inputTokens + prediction.usage.outputTokens)],
          ['latency', bitLength(Math.floor(prediction.latencyMs))],
        ];
        for (const [axis, x] of axes) {
          if (x === null) continue;
          const key = JSON.stringify([score.sim, axis, x]);
          const slice = counted.get(key) ?? { sim: score.sim, axis, x, rows: 0, n: 0, gridSum: 0 };
          slice.rows++;
          if (value !== null) {
            slice.n++;
            slice.gridSum += scoreGridUnits(value);
          }
          counted.set(key, slice);
        }
      }
      const reference = bySimAxisX(counted.values());
      expect(reference.filter((slice) => slice.axis === 'turn').length).toBeGreaterThan(10);
      expect(bySimAxisX(await chartSlices({ store }, run.id, CONTENT))).toEqual(reference);
    }, 60_000);
  });
}
