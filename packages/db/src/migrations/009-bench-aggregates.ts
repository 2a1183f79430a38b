import type { Migration } from './migration';

/**
 * Bench pages answered by SQL instead of by reading the whole run (issue 9 §3).
 *
 * - `bench_items.turn_index` / `history_length`: the two numbers the charts and the drill-down
 *   need of an item, so a page of points never detoasts the item's (large) `item` document with
 *   its whole history. Backfilled from the documents of benches stored before.
 * - `run_scores_ranked` replaces `run_scores_metric` (its prefix serves the same lookups): a cell's
 *   items worst first are an index range scan, not a sort of the run's scores.
 * - `run_score_totals`: per (run, sim, source, metric, task) the count, sum and nulls of its
 *   scores, kept current by the writer batch by batch, so a running run's leaderboard (the run
 *   page polls it) is a read of a few hundred rows, not an aggregate over millions of scores.
 *   Sums added batch by batch are not bit for bit the finished run's (float addition is not
 *   associative); a finished run's means come from ordered aggregates over its scores instead.
 * - `run_leaderboards`: a finished run's leaderboard cells, bootstrap intervals included, computed
 *   once and read as one row. Keyed by the bootstrap's resamples and seed; `scores_version` on the
 *   run is bumped by every later change of its scores (re-judging), and a cached leaderboard is
 *   only stored for the version it was computed from, so a stale one is never written back.
 */
export const benchAggregates: Migration = {
  version: 9,
  name: 'bench-aggregates',
  sql: `
ALTER TABLE bench_items ADD COLUMN turn_index integer;
ALTER TABLE bench_items ADD COLUMN history_length integer;
UPDATE bench_items SET turn_index = (item->>'turnIndex')::integer,
  history_length = jsonb_array_length(item->'history');
ALTER TABLE bench_items ALTER COLUMN turn_index SET NOT NULL;
ALTER TABLE bench_items ALTER COLUMN history_length SET NOT NULL;

DROP INDEX run_scores_metric;
CREATE INDEX run_scores_ranked ON run_scores (run_id, source, metric, sim, value NULLS FIRST, item_id);

ALTER TABLE bench_runs ADD COLUMN scores_version integer NOT NULL DEFAULT 0;

CREATE TABLE run_score_totals (
  run_id bigint NOT NULL REFERENCES bench_runs (id) ON DELETE CASCADE,
  sim text NOT NULL,
  source text NOT NULL,
  metric text NOT NULL,
  task text NOT NULL,
  n integer NOT NULL,
  sum double precision NOT NULL,
  nulls integer NOT NULL,
  PRIMARY KEY (run_id, sim, source, metric, task)
);

CREATE TABLE run_leaderboards (
  run_id bigint NOT NULL REFERENCES bench_runs (id) ON DELETE CASCADE,
  resamples integer NOT NULL,
  seed integer NOT NULL,
  scores_version integer NOT NULL,
  cells jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, resamples, seed)
);
`,
};
