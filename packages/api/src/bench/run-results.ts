import type { Store } from '@terrarium/db';
import { runResult } from '@terrarium/bench';
import type { BenchRun, ItemScore, RunPrediction, RunResult } from '@terrarium/schema';
import { readAll } from './read-all';

/** Items per page: small pages keep each statement short on the embedded store's one thread. */
const ITEMS_PER_PAGE = 200;

/**
 * A run's results unit by unit: items in build order, each item's simulators in the run's order.
 * Units with no prediction yet (a run still going, or canceled) are left out. Read a page of items
 * at a time, so a run of any size streams in bounded memory.
 */
export async function* runResults(
  store: Store,
  run: BenchRun,
  options: { history?: boolean } = {},
): AsyncGenerator<RunResult> {
  const bench = { name: run.bench, version: run.benchVersion };
  for (let offset = 0; ; offset += ITEMS_PER_PAGE) {
    const page = await store.getBenchItems(bench, {
      split: run.split,
      offset,
      limit: ITEMS_PER_PAGE,
    });
    if (page.rows.length === 0) return;
    const itemIds = page.rows.map((item) => item.id);
    const predictions = await readAll((at, limit) =>
      store.listPredictions(run.id, { itemIds, offset: at, limit }),
    );
    const scores = await readAll((at, limit) =>
      store.listScores(run.id, { itemIds, offset: at, limit }),
    );
    const predicted = new Map<string, RunPrediction>();
    for (const prediction of predictions) {
      predicted.set(unit(prediction.itemId, prediction.sim), prediction);
    }
    const scored = new Map<string, ItemScore[]>();
    for (const score of scores) {
      const key = unit(score.itemId, score.sim);
      const list = scored.get(key);
      if (list === undefined) scored.set(key, [score]);
      else list.push(score);
    }
    for (const item of page.rows) {
      for (const sim of run.sims) {
        const prediction = predicted.get(unit(item.id, sim));
        if (prediction !== undefined) {
          yield runResult(item, prediction, scored.get(unit(item.id, sim)) ?? [], options);
        }
      }
    }
    if (offset + page.rows.length >= page.total) return;
  }
}

function unit(itemId: string, sim: string): string {
  return `${itemId}\u0000${sim}`;
}
