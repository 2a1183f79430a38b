import type { Migration } from './migration';

/**
 * A trajectory's tool schemas are stored as `json`, not `jsonb`, for the reason migration 22 gave
 * for bench items: jsonb orders an object's keys by length, so a tool whose parameters were
 * `first_name, last_name, zip` read back as `zip, last_name, first_name`. The What-if and Compare
 * prompts, benches built from a dataset (and their AgentWorldBench export) then showed the world
 * model tools in an order the agent was never given. Nothing queries into the column.
 *
 * Trajectories stored before keep jsonb's order: the agent's is only in their source record, and a
 * new import of the file has it. The change of type rewrites the trajectories table once, in the
 * migration's transaction: about 1.3 s for a 94 MB table in PGlite (7,583 tau-bench trajectories).
 */
export const trajectoryToolsOrder: Migration = {
  version: 23,
  name: 'trajectory-tools-order',
  sql: `ALTER TABLE trajectories ALTER COLUMN tools TYPE json USING tools::json;`,
};
