import type { Migration } from './migration';

/**
 * The environment server's catalog: worlds built from stored trajectories and the tasks that
 * passed their gates, so both outlive a restart. A world row keeps the recipe (which dataset and
 * trajectory it is reconstructed from), not the reconstruction: that is rebuilt from the
 * trajectory on start, the same code path as the first build. Tasks keep the gate report they were
 * admitted with. No foreign key from tasks to worlds: tasks on code-defined worlds (`scratch`)
 * have no world row.
 */
export const worldsTasks: Migration = {
  version: 10,
  name: 'worlds-tasks',
  sql: `
CREATE TABLE env_worlds (
  id text PRIMARY KEY,
  kind text NOT NULL,
  description text NOT NULL,
  spec jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE env_tasks (
  id text PRIMARY KEY,
  world_id text NOT NULL,
  task jsonb NOT NULL,
  gate_report jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX env_tasks_world ON env_tasks (world_id);
`,
};
