import type { Migration } from './migration';

/**
 * Curriculum runs as jobs. A run keeps its settings, its status and, after every generation, the
 * whole curriculum checkpoint (lineages, seeds) in one row, so a run killed mid-generation resumes
 * from the last finished one with the same lineages. A generation's figures are a row each.
 *
 * `generations_done` is the optimistic lock of a run: a generation is recorded only by the UPDATE
 * that moves it from g-1 to g, so two workers that both hold the run (a job retried while its
 * first worker still lives) cannot both record generation g; the loser stops.
 */
export const curriculumRuns: Migration = {
  version: 12,
  name: 'curriculum-runs',
  sql: `
CREATE TABLE curriculum_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  dataset text NOT NULL,
  settings jsonb NOT NULL,
  status text NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'running', 'done', 'failed', 'canceled')),
  generations_total integer NOT NULL CHECK (generations_total >= 1),
  generations_done integer NOT NULL DEFAULT 0 CHECK (generations_done >= 0),
  checkpoint jsonb,
  rollouts_dataset text NOT NULL,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CHECK (generations_done <= generations_total)
);

CREATE TABLE curriculum_generations (
  run_id bigint NOT NULL REFERENCES curriculum_runs (id) ON DELETE CASCADE,
  generation integer NOT NULL CHECK (generation >= 1),
  stats jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, generation)
);
`,
};
