import {
  BenchItem,
  LeaderboardCell,
  Observation,
  ScoreSource,
  type ScorePoint,
} from '@terrarium/schema';
import type { Queryable, Row, SqlExecutor } from './executor';
import { intColumn, jsonColumn, nullableNumberColumn, nullableTextColumn, textColumn } from './row';
import type { CellScorePage, RunScoreAggregates, ScoreGroup, Store } from './store';

/**
 * The read side of the bench pages (issue 9 §3): the aggregates a leaderboard is made of, a cell's
 * items worst first and a chart's points, each one SQL statement over the run's own rows, never a
 * read of the whole run into memory. What the numbers mean stays in packages/bench
 * (`cellsFromAggregates`, `groupIntervals`); this file only sums, counts and orders.
 */
export type BenchPages = Pick<
  Store,
  | 'runScoreAggregates'
  | 'runScoreStrata'
  | 'runScoreTotals'
  | 'getRunLeaderboard'
  | 'putRunLeaderboard'
  | 'listCellScores'
  | 'listScorePoints'
  | 'refreshRunStatistics'
>;

/** A `jsonb_object_agg` of score values: `source:metric` → 0-1 or null. */
function unitScores(value: unknown): Record<string, number | null> {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`expected an object of scores, got ${typeof value}`);
  }
  const scores: Record<string, number | null> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== null && typeof entry !== 'number') {
      throw new Error(`score ${key}: expected a number or null, got ${typeof entry}`);
    }
    scores[key] = entry;
  }
  return scores;
}

const ID_PATTERN = /^[1-9][0-9]{0,17}$/;
const MAX_PAGE = 1000;

// The run's scores with the task of their item, restricted to the run's split: the rows every
// aggregate below is over. A score of an item outside the split (none are written) is left out,
// as the in-memory leaderboard leaves it out.
const SCORED = `
  SELECT s.sim, s.source, s.metric, i.task, s.item_id, s.value
  FROM bench_runs r
  JOIN run_scores s ON s.run_id = r.id
  JOIN bench_items i ON i.bench_id = r.bench_id AND i.item_id = s.item_id AND i.split = r.split
  WHERE r.id = $1::bigint`;

function scoreGroup(row: Row): ScoreGroup {
  return {
    sim: textColumn(row, 'sim'),
    source: ScoreSource.parse(textColumn(row, 'source')),
    metric: textColumn(row, 'metric'),
  };
}

/** The bench and split a run is over; null for no such run. */
async function runScope(
  db: Queryable,
  runId: string,
): Promise<{ benchId: string; split: string } | null> {
  if (!ID_PATTERN.test(runId)) return null;
  const [row] = await db.query(
    'SELECT bench_id::text AS bench_id, split FROM bench_runs WHERE id = $1::bigint',
    [runId],
  );
  return row ? { benchId: textColumn(row, 'bench_id'), split: textColumn(row, 'split') } : null;
}

export function createBenchPages(executor: SqlExecutor): BenchPages {
  return {
    async runScoreAggregates(runId) {
      if (!ID_PATTERN.test(runId)) return null;
      const [run] = await executor.query(
        'SELECT scores_version FROM bench_runs WHERE id = $1::bigint',
        [runId],
      );
      if (!run) return null;
      // Sums are ordered aggregates: PostgreSQL then adds the values one by one in that order, as
      // the in-memory leaderboard does, so means agree to the last bit (float addition is not
      // associative; an unordered sum may differ in the last digit). Tasks sort by code point
      // (COLLATE "C"), the in-memory order; items by the database's order of item ids, which is
      // also the order `listScores` returns them in.
      const [items, cells, overall] = await Promise.all([
        executor.query(
          `SELECT i.task, count(*)::int AS items FROM bench_runs r
           JOIN bench_items i ON i.bench_id = r.bench_id AND i.split = r.split
           WHERE r.id = $1::bigint GROUP BY i.task`,
          [runId],
        ),
        executor.query(
          `SELECT sim, source, metric, task, count(value)::int AS n,
             coalesce(sum(value ORDER BY item_id), 0)::float8 AS sum,
             (count(*) - count(value))::int AS nulls
           FROM (${SCORED}) scored GROUP BY sim, source, metric, task`,
          [runId],
        ),
        executor.query(
          `SELECT sim, source, metric,
             coalesce(sum(value ORDER BY task COLLATE "C", item_id), 0)::float8 AS sum
           FROM (${SCORED}) scored GROUP BY sim, source, metric`,
          [runId],
        ),
      ]);
      const aggregates: RunScoreAggregates = {
        scoresVersion: intColumn(run, 'scores_version'),
        itemsPerTask: items.map((row) => ({
          task: textColumn(row, 'task'),
          items: intColumn(row, 'items'),
        })),
        cells: cells.map((row) => ({
          ...scoreGroup(row),
          task: textColumn(row, 'task'),
          n: intColumn(row, 'n'),
          sum: nullableNumberColumn(row, 'sum') ?? 0,
          nulls: intColumn(row, 'nulls'),
        })),
        overall: overall.map((row) => ({
          ...scoreGroup(row),
          sum: nullableNumberColumn(row, 'sum') ?? 0,
        })),
      };
      return aggregates;
    },

    async runScoreTotals(runId) {
      if (!ID_PATTERN.test(runId)) return null;
      const [run] = await executor.query(
        'SELECT scores_version FROM bench_runs WHERE id = $1::bigint',
        [runId],
      );
      if (!run) return null;
      const [items, totals] = await Promise.all([
        executor.query(
          `SELECT i.task, count(*)::int AS items FROM bench_runs r
           JOIN bench_items i ON i.bench_id = r.bench_id AND i.split = r.split
           WHERE r.id = $1::bigint GROUP BY i.task`,
          [runId],
        ),
        executor.query(
          `SELECT sim, source, metric, task, n, sum, nulls FROM run_score_totals
           WHERE run_id = $1::bigint ORDER BY sim, source, metric, task COLLATE "C"`,
          [runId],
        ),
      ]);
      const cells = totals.map((row) => ({
        ...scoreGroup(row),
        task: textColumn(row, 'task'),
        n: intColumn(row, 'n'),
        sum: nullableNumberColumn(row, 'sum') ?? 0,
        nulls: intColumn(row, 'nulls'),
      }));
      const overall = new Map<string, ScoreGroup & { sum: number }>();
      for (const cell of cells) {
        const key = JSON.stringify([cell.sim, cell.source, cell.metric]);
        const entry = overall.get(key) ?? {
          sim: cell.sim,
          source: cell.source,
          metric: cell.metric,
          sum: 0,
        };
        entry.sum += cell.sum;
        overall.set(key, entry);
      }
      const aggregates: RunScoreAggregates = {
        scoresVersion: intColumn(run, 'scores_version'),
        itemsPerTask: items.map((row) => ({
          task: textColumn(row, 'task'),
          items: intColumn(row, 'items'),
        })),
        cells,
        overall: [...overall.values()],
      };
      return aggregates;
    },

    async runScoreStrata(runId, group) {
      if (!ID_PATTERN.test(runId)) return new Map();
      const rows = await executor.query(
        `SELECT task, array_agg(value ORDER BY item_id)::float8[] AS values
         FROM (${SCORED}) scored
         WHERE sim = $2 AND source = $3 AND metric = $4 AND value IS NOT NULL
         GROUP BY task`,
        [runId, group.sim, group.source, group.metric],
      );
      return new Map(rows.map((row) => [textColumn(row, 'task'), numberArray(row['values'])]));
    },

    async getRunLeaderboard(runId, key) {
      if (!ID_PATTERN.test(runId)) return null;
      const [row] = await executor.query(
        `SELECT l.cells FROM run_leaderboards l JOIN bench_runs r ON r.id = l.run_id
         WHERE l.run_id = $1::bigint AND l.resamples = $2 AND l.seed = $3
           AND l.scores_version = r.scores_version`,
        [runId, key.resamples, key.seed],
      );
      return row ? LeaderboardCell.array().parse(jsonColumn(row, 'cells')) : null;
    },

    async putRunLeaderboard(runId, key, scoresVersion, cells) {
      if (!ID_PATTERN.test(runId)) return false;
      // Only for a finished run whose scores are still the ones the cells were computed from.
      const rows = await executor.query(
        `INSERT INTO run_leaderboards (run_id, resamples, seed, scores_version, cells)
         SELECT r.id, $2, $3, r.scores_version, $5::jsonb FROM bench_runs r
         WHERE r.id = $1::bigint AND r.scores_version = $4
           AND r.status IN ('done', 'failed', 'canceled')
         ON CONFLICT (run_id, resamples, seed) DO UPDATE
           SET cells = EXCLUDED.cells, scores_version = EXCLUDED.scores_version, created_at = now()
         RETURNING run_id`,
        [runId, key.resamples, key.seed, scoresVersion, JSON.stringify(cells)],
      );
      return rows.length > 0;
    },

    async listCellScores(runId, cell) {
      const run = await runScope(executor, runId);
      if (run === null) return { total: 0, rows: [] };
      const offset = Math.max(0, Math.trunc(cell.offset));
      const limit = Math.min(MAX_PAGE, Math.max(0, Math.trunc(cell.limit)));
      // A task cell keeps the items of that task of the run's split; `overall`/`macro` (task null)
      // every score of the simulator: a run's scores are all of items of its split (the writer
      // takes its units from the split), so that count needs no join and is an index-only scan.
      // The (run, source, metric, sim, value, item) index gives the rows already worst first;
      // the page's items, predictions and other scores are then primary-key lookups of its rows.
      const cellParams: unknown[] = [runId, cell.source, cell.metric, cell.sim];
      const from =
        cell.task === null
          ? `FROM run_scores s
             WHERE s.run_id = $1::bigint AND s.source = $2 AND s.metric = $3 AND s.sim = $4`
          : `FROM run_scores s
             JOIN bench_items i ON i.bench_id = $${cellParams.push(run.benchId)}::bigint
               AND i.item_id = s.item_id AND i.split = $${cellParams.push(run.split)}
               AND i.task = $${cellParams.push(cell.task)}
             WHERE s.run_id = $1::bigint AND s.source = $2 AND s.metric = $3 AND s.sim = $4`;
      const [countRow] = await executor.query(`SELECT count(*)::int AS total ${from}`, cellParams);
      const total = countRow ? intColumn(countRow, 'total') : 0;
      if (limit === 0 || offset >= total) return { total, rows: [] };
      const params = [...cellParams, run.benchId];
      const rows = await executor.query(
        `SELECT page.item_id, page.value, b.item, p.observation, p.latency_ms, p.error,
           (SELECT jsonb_object_agg(o.source || ':' || o.metric, o.value) FROM run_scores o
            WHERE o.run_id = $1::bigint AND o.item_id = page.item_id AND o.sim = $4) AS scores
         FROM (SELECT s.item_id, s.value ${from}
               ORDER BY s.value NULLS FIRST, s.item_id LIMIT ${limit} OFFSET ${offset}) page
         JOIN bench_items b ON b.bench_id = $${params.length}::bigint AND b.item_id = page.item_id
         LEFT JOIN run_predictions p ON p.run_id = $1::bigint AND p.item_id = page.item_id
           AND p.sim = $4
         ORDER BY page.value NULLS FIRST, page.item_id`,
        params,
      );
      const page: CellScorePage = {
        total,
        rows: rows.map((row) => ({
          itemId: textColumn(row, 'item_id'),
          value: nullableNumberColumn(row, 'value'),
          item: BenchItem.parse(jsonColumn(row, 'item')),
          prediction:
            row['latency_ms'] === null || row['latency_ms'] === undefined
              ? null
              : {
                  observation: Observation.nullable().parse(jsonColumn(row, 'observation') ?? null),
                  latencyMs: nullableNumberColumn(row, 'latency_ms') ?? 0,
                  error: nullableTextColumn(row, 'error'),
                },
          scores: unitScores(jsonColumn(row, 'scores')),
        })),
      };
      return page;
    },

    async refreshRunStatistics() {
      if (executor.backend !== 'pglite') return;
      // VACUUM also sets the visibility map, so counts and pages become index-only scans.
      await executor.exec('VACUUM ANALYZE run_scores, run_predictions, bench_items');
    },

    async listScorePoints(runId, selector) {
      const run = await runScope(executor, runId);
      if (run === null) return [];
      // Three range scans merged here rather than one join: per score row, the join's two index
      // lookups measured 20-50x the scans (PGlite); each scan reads only narrow columns.
      const [scores, items, predictions] = await Promise.all([
        executor.query(
          `SELECT sim, item_id, value FROM run_scores
           WHERE run_id = $1::bigint AND source = $2 AND metric = $3 ORDER BY sim, item_id`,
          [runId, selector.source, selector.metric],
        ),
        executor.query(
          `SELECT item_id, task, turn_index, history_length FROM bench_items
           WHERE bench_id = $1::bigint`,
          [run.benchId],
        ),
        executor.query(
          `SELECT sim, item_id, latency_ms::float8 AS latency_ms, input_tokens, output_tokens
           FROM run_predictions WHERE run_id = $1::bigint`,
          [runId],
        ),
      ]);
      const itemById = new Map(items.map((row) => [textColumn(row, 'item_id'), row]));
      const predictionByUnit = new Map(
        predictions.map((row) => [
          `${textColumn(row, 'sim')}\u0000${textColumn(row, 'item_id')}`,
          row,
        ]),
      );
      return scores.flatMap((row): ScorePoint[] => {
        const sim = textColumn(row, 'sim');
        const itemId = textColumn(row, 'item_id');
        const item = itemById.get(itemId);
        if (item === undefined) return [];
        const prediction = predictionByUnit.get(`${sim}\u0000${itemId}`);
        return [
          {
            sim,
            task: textColumn(item, 'task'),
            itemId,
            turnIndex: intColumn(item, 'turn_index'),
            historyLength: intColumn(item, 'history_length'),
            value: nullableNumberColumn(row, 'value'),
            latencyMs: prediction ? (nullableNumberColumn(prediction, 'latency_ms') ?? 0) : 0,
            inputTokens: prediction ? intColumn(prediction, 'input_tokens') : 0,
            outputTokens: prediction ? intColumn(prediction, 'output_tokens') : 0,
          },
        ];
      });
    },
  };
}

/** A float8[] column: node-postgres parses it to numbers; PGlite too. Anything else is a bug. */
function numberArray(value: unknown): number[] {
  if (!Array.isArray(value)) throw new Error(`expected a float8[] column, got ${typeof value}`);
  return value.map((entry: unknown) => {
    const number = typeof entry === 'string' ? Number(entry) : entry;
    if (typeof number !== 'number' || Number.isNaN(number)) {
      throw new Error(`expected a number in a float8[] column, got ${String(entry)}`);
    }
    return number;
  });
}
