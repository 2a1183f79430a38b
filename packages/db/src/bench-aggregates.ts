/**
 * The run aggregates the writer keeps current (migrations 009 and 013): per (run, simulator,
 * source, metric, task) the count, grid sum and nulls of its scores (`run_score_totals`, what a
 * leaderboard's means are), and the same scores counted along the chart axes (`run_score_slices`,
 * packages/schema `SCORE_SLICE_AXES`). One statement builds both from a set of scored rows: the
 * rows a batch adds, or all of a run's rows again after scores were replaced.
 */

/** A score in grid units, as packages/schema `scoreGridUnits` computes it. */
const GRID_UNITS = 'floor(value * 4294967296 + 0.5)';

/** Bit length of a non-negative int: 0 for 0, x for 2^(x-1) to 2^x - 1. */
const bitLength = (value: string) => `length(ltrim(greatest(${value}, 0)::bit(32)::text, '0'))`;

// One row per chart axis of a scored row (SCORE_SLICE_AXES); x null leaves the row off that axis.
const SLICE_AXES = `CROSS JOIN LATERAL (VALUES
  ('bin', CASE WHEN value IS NULL THEN NULL
    ELSE least(9, greatest(0, floor(value * 100 / 10)))::int END),
  ('turn', turn_index),
  ('history', history_length),
  ('history-shift', history_length - turn_index),
  ('tokens', ${bitLength('tokens')}),
  ('latency', ${bitLength('floor(latency_ms)::int')})
) AS a(axis, x)`;

/**
 * Adds `scored` (a SELECT of run_id, sim, source, metric, value, task, turn_index,
 * history_length, latency_ms, tokens) to both tables of aggregates.
 */
function addScored(scored: string): string {
  return `
WITH scored AS (${scored}),
totals AS (
  INSERT INTO run_score_totals (run_id, sim, source, metric, task, n, grid_sum, nulls)
  SELECT run_id, sim, source, metric, task, count(value)::int,
    coalesce(sum(${GRID_UNITS}), 0), (count(*) - count(value))::int
  FROM scored GROUP BY run_id, sim, source, metric, task
  ON CONFLICT (run_id, sim, source, metric, task) DO UPDATE
    SET n = run_score_totals.n + EXCLUDED.n,
      grid_sum = run_score_totals.grid_sum + EXCLUDED.grid_sum,
      nulls = run_score_totals.nulls + EXCLUDED.nulls
)
INSERT INTO run_score_slices (run_id, source, metric, sim, axis, x, rows, n, grid_sum)
SELECT run_id, source, metric, sim, a.axis, a.x, count(*)::int, count(value)::int,
  coalesce(sum(${GRID_UNITS}), 0)
FROM scored ${SLICE_AXES}
WHERE a.x IS NOT NULL
GROUP BY run_id, source, metric, sim, a.axis, a.x
ON CONFLICT (run_id, source, metric, sim, axis, x) DO UPDATE
  SET rows = run_score_slices.rows + EXCLUDED.rows, n = run_score_slices.n + EXCLUDED.n,
    grid_sum = run_score_slices.grid_sum + EXCLUDED.grid_sum`;
}

// What a scored row is made of: the score, its item of the run's split and its prediction. A
// score of an item outside the split (none are written) is left out, as the leaderboard does.
const SCORED_COLUMNS = `r.id AS run_id, x.sim, x.source, x.metric, x.value, i.task, i.turn_index,
  i.history_length, p.latency_ms, p.input_tokens + p.output_tokens AS tokens`;
const SCORED_JOINS = `
  JOIN bench_items i ON i.bench_id = r.bench_id AND i.item_id = x.item_id AND i.split = r.split
  JOIN run_predictions p ON p.run_id = r.id AND p.item_id = x.item_id AND p.sim = x.sim`;

/**
 * Adds a batch's scores ($2: JSON rows of item_id, sim, source, metric, value) of run $1. Only
 * scores of units the batch inserted arrive here (their predictions are in), so none counts twice.
 */
export const ADD_TO_AGGREGATES = addScored(`
  SELECT ${SCORED_COLUMNS}
  FROM json_to_recordset($2::json) AS x(item_id text, sim text, source text, metric text,
    value double precision)
  JOIN bench_runs r ON r.id = $1::bigint ${SCORED_JOINS}`);

/** All of run $1's aggregates from its stored scores: after `addScores` replaced some. */
export const RECOMPUTE_AGGREGATES = [
  'DELETE FROM run_score_totals WHERE run_id = $1::bigint',
  'DELETE FROM run_score_slices WHERE run_id = $1::bigint',
  addScored(`
  SELECT ${SCORED_COLUMNS}
  FROM bench_runs r JOIN run_scores x ON x.run_id = r.id ${SCORED_JOINS}
  WHERE r.id = $1::bigint`),
] as const;
