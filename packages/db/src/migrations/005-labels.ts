import type { Migration } from './migration';

/**
 * Label queues over the predictions of one bench run's simulator.
 *
 * A queue item holds its lease in two columns (`leased_by`, `lease_expires_at`) so that granting,
 * renewing and releasing a lease are each one conditional UPDATE: two labelers racing for the same
 * item cannot both win, on PGlite or PostgreSQL. `label_count` is bumped in the same UPDATE that
 * releases the lease on submit, so an item never gets more than `labels_per_item` labels.
 *
 * Raw labels, their edit history (`label_events`) and researchers' adjudications are separate
 * tables: an adjudication never overwrites what a labeler said.
 */
export const labels: Migration = {
  version: 5,
  name: 'labels',
  sql: `
CREATE TABLE label_queues (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  run_id bigint NOT NULL REFERENCES bench_runs (id) ON DELETE CASCADE,
  sim text NOT NULL,
  selection jsonb NOT NULL,
  labels_per_item integer NOT NULL CHECK (labels_per_item BETWEEN 1 AND 50),
  blind boolean NOT NULL,
  criteria jsonb NOT NULL,
  rule_set jsonb,
  lease_seconds integer NOT NULL CHECK (lease_seconds BETWEEN 5 AND 3600),
  labelers jsonb,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE label_queue_items (
  queue_id bigint NOT NULL REFERENCES label_queues (id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  item_id text NOT NULL,
  label_count integer NOT NULL DEFAULT 0 CHECK (label_count >= 0),
  leased_by text,
  lease_expires_at timestamptz,
  PRIMARY KEY (queue_id, ordinal),
  UNIQUE (queue_id, item_id),
  CHECK ((leased_by IS NULL) = (lease_expires_at IS NULL))
);

CREATE TABLE labels (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue_id bigint NOT NULL,
  ordinal integer NOT NULL,
  labeler_id text NOT NULL,
  labeler_name text NOT NULL,
  scores jsonb NOT NULL,
  comment text NOT NULL DEFAULT '',
  flagged boolean NOT NULL DEFAULT false,
  origin text NOT NULL CHECK (origin IN ('queue', 'import')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (queue_id, ordinal) REFERENCES label_queue_items (queue_id, ordinal) ON DELETE CASCADE,
  UNIQUE (queue_id, ordinal, labeler_id)
);
CREATE INDEX labels_queue ON labels (queue_id, ordinal);

CREATE TABLE label_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  label_id bigint NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
  actor_id text NOT NULL,
  actor_name text NOT NULL,
  action text NOT NULL CHECK (action IN ('create', 'edit', 'import')),
  scores jsonb NOT NULL,
  comment text NOT NULL,
  flagged boolean NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX label_events_label ON label_events (label_id, id);

CREATE TABLE label_skips (
  queue_id bigint NOT NULL,
  ordinal integer NOT NULL,
  labeler_id text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (queue_id, ordinal) REFERENCES label_queue_items (queue_id, ordinal) ON DELETE CASCADE,
  PRIMARY KEY (queue_id, ordinal, labeler_id)
);

CREATE TABLE label_adjudications (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue_id bigint NOT NULL,
  ordinal integer NOT NULL,
  criterion text NOT NULL,
  value double precision,
  comment text NOT NULL DEFAULT '',
  researcher_id text NOT NULL,
  researcher_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (queue_id, ordinal) REFERENCES label_queue_items (queue_id, ordinal) ON DELETE CASCADE
);
CREATE INDEX label_adjudications_item ON label_adjudications (queue_id, ordinal, criterion, id);
`,
};
