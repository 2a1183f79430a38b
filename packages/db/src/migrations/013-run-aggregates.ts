import type { Migration } from './migration';

/**
 * Run aggregates that are exact at any size and charts without a point per item (issue 9 §3).
 *
 * - `run_score_totals.sum` becomes `grid_sum`: the sum of the scores in units of 2^-32 (each
 *   `floor(value * 2^32 + 0.5)`, packages/schema `scoreGridUnits`). Integers add exactly in
 *   double precision (up to 2^53), so the totals the writer adds batch by batch are the finished
 *   run's exact sums, and a finished leaderboard's means need no pass over its scores.
 * - `run_score_slices`: per (run, source, metric, simulator) the scores counted along the chart
 *   axes (packages/schema `SCORE_SLICE_AXES`): rows, values and their grid sum per x. Kept current
 *   by the writer with the totals, so a chart reads a few dozen rows at any run size.
 * - Cached leaderboards are dropped: their intervals came from the earlier, per-cell bootstrap.
 *
 * Both tables are recomputed here from the stored scores, in SQL that counts as the writer does
 * (packages/db run-aggregates.ts, packages/schema `scoreSliceXs`).
 */
/** Every run's totals and slices counted from its stored scores, into the (empty) tables. */
export const RECOUNT_ALL_RUNS = `
CREATE TEMPORARY TABLE scored_013 AS
SELECT r.id AS run_id, s.sim, s.source, s.metric, s.value, i.task, i.turn_index, i.history_length,
  p.latency_ms, p.input_tokens + p.output_tokens AS tokens,
  floor(s.value * 4294967296 + 0.5) AS units
FROM bench_runs r
JOIN run_scores s ON s.run_id = r.id
JOIN bench_items i ON i.bench_id = r.bench_id AND i.item_id = s.item_id AND i.split = r.split
LEFT JOIN run_predictions p ON p.run_id = r.id AND p.item_id = s.item_id AND p.sim = s.sim;

INSERT INTO run_score_totals (run_id, sim, source, metric, task, n, grid_sum, nulls)
SELECT run_id, sim, source, metric, task, count(value)::int, coalesce(sum(units), 0),
  (count(*) - count(value))::int
FROM scored_013 GROUP BY run_id, sim, source, metric, task;

INSERT INTO run_score_slices (run_id, source, metric, sim, axis, x, rows, n, grid_sum)
SELECT run_id, source, metric, sim, a.axis, a.x, count(*)::int, count(value)::int,
  coalesce(sum(units), 0)
FROM scored_013 CROSS JOIN LATERAL (VALUES
  ('bin', CASE WHEN value IS NULL THEN NULL ELSE least(9, greatest(0, floor(value * 100 / 10)))::int END),
  ('turn', turn_index),
  ('history', history_length),
  ('history-shift', history_length - turn_index),
  ('tokens', length(ltrim(greatest(tokens, 0)::bit(32)::text, '0'))),
  ('latency', length(ltrim(greatest(floor(latency_ms), 0)::int::bit(32)::text, '0')))
) AS a(axis, x)
WHERE a.x IS NOT NULL
GROUP BY run_id, source, metric, sim, a.axis, a.x;

DROP TABLE scored_013;
`;

export const runAggregates: Migration = {
  version: 13,
  name: 'run-aggregates',
  sql: `
DELETE FROM run_leaderboards;
DELETE FROM run_score_totals;
ALTER TABLE run_score_totals RENAME COLUMN sum TO grid_sum;

CREATE TABLE run_score_slices (
  run_id bigint NOT NULL REFERENCES bench_runs (id) ON DELETE CASCADE,
  source text NOT NULL,
  metric text NOT NULL,
  sim text NOT NULL,
  axis text NOT NULL,
  x integer NOT NULL,
  rows integer NOT NULL,
  n integer NOT NULL,
  grid_sum double precision NOT NULL,
  PRIMARY KEY (run_id, source, metric, sim, axis, x)
);

${RECOUNT_ALL_RUNS}`,
};
