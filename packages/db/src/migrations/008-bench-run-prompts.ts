import type { Migration } from './migration';

/**
 * The prompt folder a bench run was started with (`--prompts DIR`): its files' texts by relative
 * path, their SHA-256 and the sorted paths. Workers read the prompts from here, not from their own
 * command line, so a run is reproducible on any machine and "Re-run in bench" speaks with the
 * prompts the run used. A run without a row used Terrarium's own templates. Written once, in the
 * transaction that creates the run; never updated.
 */
export const benchRunPrompts: Migration = {
  version: 8,
  name: 'bench-run-prompts',
  sql: `
CREATE TABLE bench_run_prompts (
  run_id bigint PRIMARY KEY REFERENCES bench_runs (id) ON DELETE CASCADE,
  content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
  file_names jsonb NOT NULL,
  files jsonb NOT NULL
);
`,
};
