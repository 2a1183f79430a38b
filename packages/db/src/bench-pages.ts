import {
  LeaderboardCell,
  Observation,
  ScoreSliceAxis,
  ScoreSource,
  type ScoreSlice,
} from '@terrarium/schema';
import type { BenchContexts } from './bench-contexts';
import type { Queryable, Row, SqlExecutor } from './executor';
import { intColumn, jsonColumn, nullableNumberColumn, nullableTextColumn, textColumn } from './row';
import type { CellScorePage, RunScoreTotals, ScoreGroup, Store } from './store';

/**
 * The read side of the bench pages (issue 9 §3): the totals a leaderboard is made of, the values
 * its bootstrap resamples (paged), a cell's items worst first and a chart's slices, each a short
 * SQL statement, never a read of the whole run at once. The totals and slices are kept current by
 * the writer (bench-aggregates.ts); what the numbers mean stays in packages/bench
 * (`cellsFromAggregates`, `groupIntervals`) and packages/schema (`gridMean`).
 */
export type BenchPages = Pick<
  Store,
  | 'runScoreTotals'
  | 'runScoreValues'
  | 'getRunLeaderboard'
  | 'putRunLeaderboard'
  | 'settleRunScores'
  | 'listCellScores'
  | 'runScoreSlices'
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

export function createBenchPages(executor: SqlExecutor, contexts: BenchContexts): BenchPages {
  return {
    async runScoreTotals(runId) {
      if (!ID_PATTERN.test(runId)) return null;
      const [run] = await executor.query(
        'SELECT scores_version FROM bench_runs WHERE id = $1::bigint',
        [runId],
      );
      if (!run) return null;
      const [items, totals] = await Promise.all([
        executor.query(
          `SELECT t.task, t.items FROM bench_runs r
           JOIN bench_split_tasks t ON t.bench_id = r.bench_id AND t.split = r.split
           WHERE r.id = $1::bigint ORDER BY t.task COLLATE "C"`,
          [runId],
        ),
        executor.query(
          `SELECT sim, source, metric, task, n, grid_sum, nulls FROM run_score_totals
           WHERE run_id = $1::bigint ORDER BY sim, source, metric, task COLLATE "C"`,
          [runId],
        ),
      ]);
      const totalsOfRun: RunScoreTotals = {
        scoresVersion: intColumn(run, 'scores_version'),
        itemsPerTask: items.map((row) => ({
          task: textColumn(row, 'task'),
          items: intColumn(row, 'items'),
        })),
        cells: totals.map((row) => ({
          ...scoreGroup(row),
          task: textColumn(row, 'task'),
          n: intColumn(row, 'n'),
          gridSum: nullableNumberColumn(row, 'grid_sum') ?? 0,
          nulls: intColumn(row, 'nulls'),
        })),
      };
      return totalsOfRun;
    },

    async runScoreValues(runId, page) {
      const run = await runScope(executor, runId);
      if (run === null) return { groups: [], next: null };
      const after = page.after ?? -1;
      const limit = Math.max(1, Math.trunc(page.limit));
      // The page's ordinal range first (an index-only range), then its items' scores by the
      // scores' primary key: every statement is bounded by the page, whatever the run's size.
      const [range] = await executor.query(
        `SELECT max(ordinal) AS last, count(*)::int AS items FROM (
           SELECT ordinal FROM bench_items WHERE bench_id = $1::bigint AND split = $2
             AND ordinal > $3::int ORDER BY ordinal LIMIT $4::int) page`,
        [run.benchId, run.split, after, limit],
      );
      const items = range ? intColumn(range, 'items') : 0;
      if (range === undefined || items === 0) return { groups: [], next: null };
      const last = intColumn(range, 'last');
      // Each item's scores by the scores' primary key (run, item, …): `OFFSET 0` keeps the
      // subquery from being flattened into a join the planner may run as a scan of the whole
      // run's scores per page (it did once bench_items had statistics: 38 s → 292 s for the
      // bootstrap of a 100,000-item run). Values in build order, so a seeded bootstrap repeats.
      const rows = await executor.query(
        `SELECT s.sim, s.source, s.metric, i.task,
           array_agg(s.value ORDER BY i.ordinal)::float8[] AS values
         FROM bench_items i
         CROSS JOIN LATERAL (
           SELECT o.sim, o.source, o.metric, o.value FROM run_scores o
           WHERE o.run_id = $1::bigint AND o.item_id = i.item_id AND o.value IS NOT NULL
           OFFSET 0) s
         WHERE i.bench_id = $2::bigint AND i.split = $3 AND i.ordinal > $4::int
           AND i.ordinal <= $5::int
         GROUP BY s.sim, s.source, s.metric, i.task`,
        [runId, run.benchId, run.split, after, last],
      );
      return {
        groups: rows.map((row) => ({
          ...scoreGroup(row),
          task: textColumn(row, 'task'),
          values: numberArray(row['values']),
        })),
        next: items < limit ? null : last,
      };
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

    async settleRunScores() {
      // PGlite runs no autovacuum (and a server's comes when it comes): until a VACUUM marks the
      // heap pages all-visible, an index-only scan still fetches each entry's row, and a page
      // 50,000 rows deep into a cell took 410 ms instead of 13 (benchmarks/bench-pages.ts).
      // VACUUM skips the pages it marked before, so each call costs the rows written since.
      await executor.exec('VACUUM run_scores');
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
      // The cell's size from the writer's totals (values and nulls of the split's items): a
      // count over the index would read as many entries as the cell has.
      const [countRow] = await executor.query(
        `SELECT coalesce(sum(n + nulls), 0)::int AS total FROM run_score_totals
         WHERE run_id = $1::bigint AND source = $2 AND metric = $3 AND sim = $4
           AND ($5::text IS NULL OR task = $5::text)`,
        [runId, cell.source, cell.metric, cell.sim, cell.task],
      );
      const total = countRow ? intColumn(countRow, 'total') : 0;
      if (limit === 0 || offset >= total) return { total, rows: [] };
      const params = [...cellParams, run.benchId];
      const rows = await executor.query(
        `SELECT page.item_id, page.value, b.item, b.context_no, p.observation, p.latency_ms, p.error,
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
        rows: (await contexts.withItems(executor, run.benchId, rows)).map(({ row, item }) => ({
          itemId: textColumn(row, 'item_id'),
          value: nullableNumberColumn(row, 'value'),
          item,
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

    async runScoreSlices(runId, selector) {
      if (!ID_PATTERN.test(runId)) return [];
      const rows = await executor.query(
        `SELECT sim, axis, x, rows, n, grid_sum FROM run_score_slices
         WHERE run_id = $1::bigint AND source = $2 AND metric = $3 ORDER BY sim, axis, x`,
        [runId, selector.source, selector.metric],
      );
      return rows.map((row): ScoreSlice => ({
        sim: textColumn(row, 'sim'),
        axis: ScoreSliceAxis.parse(textColumn(row, 'axis')),
        x: intColumn(row, 'x'),
        rows: intColumn(row, 'rows'),
        n: intColumn(row, 'n'),
        gridSum: nullableNumberColumn(row, 'grid_sum') ?? 0,
      }));
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
