import type { Migration } from './migration';

/**
 * Imports as jobs. Number 014, not the 011 that was set aside for it: the runner applies only
 * migrations above the highest one a store has (migrate.ts), and stores already carry 012, so an
 * 011 would never run on them.
 *
 * A job keeps what it imports (the files, or the upload spooled into the data folder), its batch,
 * and after every group it writes a checkpoint in the same transaction as the group's rows: where
 * in which file the next group starts, and the report so far. A job interrupted by a crash or a
 * kill -9 resumes there, so its dataset ends with exactly the records of an uninterrupted import.
 * Its batch stays invisible (`importing`) until the job finishes; the store deletes abandoned
 * batches on open, but not the batch of a job that is still queued or running.
 */
export const importJobs: Migration = {
  version: 14,
  name: 'import-jobs',
  sql: `
CREATE TABLE import_jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  dataset text NOT NULL,
  format text,
  files jsonb NOT NULL,
  owns_files boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'running', 'done', 'failed', 'canceled')),
  batch_id bigint REFERENCES import_batches (id) ON DELETE SET NULL,
  total_bytes bigint NOT NULL DEFAULT 0,
  done_bytes bigint NOT NULL DEFAULT 0,
  trajectories integer NOT NULL DEFAULT 0,
  resumes integer NOT NULL DEFAULT 0,
  checkpoint jsonb,
  report jsonb,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX import_jobs_unfinished ON import_jobs (id) WHERE status IN ('queued', 'running');
CREATE INDEX import_jobs_batch ON import_jobs (batch_id);
`,
};
