import type { Migration } from './migration';

/**
 * Benches are frozen: a bench row and its items are written once, in one transaction, and never
 * updated; a rebuild under the same name is the next version.
 *
 * A prediction's primary key is (run, item, sim), so an item can never be predicted twice: a
 * retried or duplicated job chunk inserts nothing for units already recorded (`recordPrediction`
 * checks and counts in the same transaction). Scores keep their source in the key, so rule, judge
 * and human scores of one item live in separate rows and are never mixed.
 *
 * Items and runs hold their documents as jsonb: they are read whole and never queried inside,
 * except for the columns copied out (task, split) that runs and leaderboards filter on.
 */
export const benches: Migration = {
  version: 2,
  name: 'benches',
  sql: `
CREATE TABLE benches (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  manifest jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (name, version)
);

CREATE TABLE bench_items (
  bench_id bigint NOT NULL REFERENCES benches (id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  item_id text NOT NULL,
  task text NOT NULL,
  split text NOT NULL CHECK (split IN ('test', 'dev')),
  item jsonb NOT NULL,
  PRIMARY KEY (bench_id, ordinal),
  UNIQUE (bench_id, item_id)
);
CREATE INDEX bench_items_split ON bench_items (bench_id, split, ordinal);

CREATE TABLE bench_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  bench_id bigint NOT NULL REFERENCES benches (id) ON DELETE CASCADE,
  sims jsonb NOT NULL,
  judge jsonb,
  mode jsonb NOT NULL,
  split text NOT NULL CHECK (split IN ('test', 'dev')),
  status text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'canceled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  total integer NOT NULL CHECK (total >= 0),
  done integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cost_usd double precision NOT NULL DEFAULT 0,
  error text
);
CREATE INDEX bench_runs_bench ON bench_runs (bench_id, id);
CREATE INDEX bench_runs_unfinished ON bench_runs (id) WHERE status IN ('queued', 'running');

CREATE TABLE run_predictions (
  run_id bigint NOT NULL REFERENCES bench_runs (id) ON DELETE CASCADE,
  item_id text NOT NULL,
  sim text NOT NULL,
  observation jsonb,
  reasoning text,
  provenance jsonb NOT NULL,
  latency_ms double precision NOT NULL,
  input_tokens integer NOT NULL,
  output_tokens integer NOT NULL,
  cost_usd double precision NOT NULL DEFAULT 0,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, item_id, sim)
);
CREATE INDEX run_predictions_sim ON run_predictions (run_id, sim, item_id);

CREATE TABLE run_scores (
  run_id bigint NOT NULL REFERENCES bench_runs (id) ON DELETE CASCADE,
  item_id text NOT NULL,
  sim text NOT NULL,
  source text NOT NULL CHECK (source IN ('rule', 'judge', 'human')),
  metric text NOT NULL,
  value double precision CHECK (value >= 0 AND value <= 1),
  detail jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, item_id, sim, source, metric)
);
CREATE INDEX run_scores_metric ON run_scores (run_id, source, metric);
`,
};
