import type { Migration } from './migration';

/**
 * Visibility: every row belongs to an import batch, and reads join `import_batches` on
 * `status = 'complete'`, so a batch is invisible until its single-row commit flips the status.
 *
 * Steps keep the observation in plain columns (kind, content, call id) rather than one jsonb value:
 * markers read the kind without detoasting 20 KB bodies, and content is not parsed as JSON twice.
 * The trajectory's source record is `json`, not `jsonb`, so it keeps its key order and spelling for
 * lossless export.
 */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE datasets (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Ids come from a plain sequence because an importer takes its batch's advisory lock before the
-- row exists (see sql-store.ts, "unfinished imports").
CREATE SEQUENCE import_batch_ids;

CREATE TABLE import_batches (
  id bigint PRIMARY KEY DEFAULT nextval('import_batch_ids'),
  dataset_id bigint NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('importing', 'complete')),
  started_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  trajectory_count integer NOT NULL DEFAULT 0,
  step_count bigint NOT NULL DEFAULT 0,
  transition_count bigint NOT NULL DEFAULT 0,
  quarantined_count integer NOT NULL DEFAULT 0
);
CREATE INDEX import_batches_dataset ON import_batches (dataset_id);
CREATE INDEX import_batches_importing ON import_batches (id) WHERE status = 'importing';

CREATE SEQUENCE trajectory_ids;

CREATE TABLE trajectories (
  id bigint PRIMARY KEY,
  dataset_id bigint NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
  batch_id bigint NOT NULL REFERENCES import_batches (id) ON DELETE CASCADE,
  external_id text NOT NULL,
  source_format text NOT NULL,
  source_benchmark text,
  domain text NOT NULL,
  task text,
  system_prompt text,
  tools jsonb NOT NULL,
  tools_inferred boolean NOT NULL,
  agent_model text,
  outcome_reward double precision,
  outcome_success boolean,
  metadata jsonb NOT NULL,
  source_file text NOT NULL,
  source_line integer,
  source_record json NOT NULL,
  step_count integer NOT NULL,
  transition_count integer NOT NULL,
  search tsvector NOT NULL
);
CREATE INDEX trajectories_dataset ON trajectories (dataset_id, id);
CREATE INDEX trajectories_batch ON trajectories (batch_id);
CREATE INDEX trajectories_domain ON trajectories (domain, id);
CREATE INDEX trajectories_format ON trajectories (source_format, id);
CREATE INDEX trajectories_success ON trajectories (outcome_success, id);
CREATE INDEX trajectories_steps ON trajectories (step_count, id);
CREATE INDEX trajectories_search ON trajectories USING gin (search);

CREATE TABLE steps (
  trajectory_id bigint NOT NULL REFERENCES trajectories (id) ON DELETE CASCADE,
  idx integer NOT NULL,
  actor text NOT NULL,
  action_type text NOT NULL,
  action jsonb NOT NULL,
  observation_kind text,
  observation_content text,
  observation_call_id text,
  reasoning text,
  reward double precision,
  timing jsonb,
  metadata jsonb NOT NULL,
  search tsvector NOT NULL,
  PRIMARY KEY (trajectory_id, idx)
);
CREATE INDEX steps_search ON steps USING gin (search);

CREATE TABLE quarantine (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  dataset_id bigint NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
  batch_id bigint NOT NULL REFERENCES import_batches (id) ON DELETE CASCADE,
  file text NOT NULL,
  line integer,
  byte_offset bigint,
  reason text NOT NULL,
  excerpt text NOT NULL
);
CREATE INDEX quarantine_dataset ON quarantine (dataset_id, id);
CREATE INDEX quarantine_batch ON quarantine (batch_id);

-- Search covers each field's first 4,096 and last 1,024 characters: to_tsvector runs at a few
-- MB/s in PGlite and a tsvector must stay under 1 MB, so a 20 KB (or 50 MB) observation is indexed
-- by its head, where commands echo and results start, and its tail, where errors and exit lines are.
CREATE FUNCTION terrarium_search_excerpt(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN length(t) <= 5120 THEN t ELSE left(t, 4096) || ' ' || right(t, 1024) END $$;

-- '/' and '.' become spaces so path and file-name parts are words (search.ts explains).
CREATE FUNCTION terrarium_search_vector(a text, b text, c text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_tsvector('simple', translate(concat_ws(' ', terrarium_search_excerpt(a),
          terrarium_search_excerpt(b), terrarium_search_excerpt(c)), '/.', '  ')) $$;
`,
};
