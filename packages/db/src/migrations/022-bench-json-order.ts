import type { Migration } from './migration';

/**
 * A bench item and its context are stored as `json`, not `jsonb`: jsonb orders an object's keys by
 * length, so an action stored as `{"first_name", "last_name", "zip"}` came back as `{"zip",
 * "last_name", "first_name"}`, and so did the properties of its tool schemas. The world model's
 * and the judge's prompts, the AgentWorldBench export and every page that shows the action then
 * said it in an order the agent never used (the official prompts, built from the agent's text,
 * differ). `json` keeps the text it was given. No query reads into these columns (they are read
 * whole), so nothing else changes.
 *
 * Benches stored before this keep the order jsonb gave them: the agent's order is not in the
 * database any more. A bench built again from its datasets has the agent's order. The change of
 * type rewrites both tables once, in the migration's transaction (the old and the new copy are
 * both on disk until it commits).
 */
export const benchJsonOrder: Migration = {
  version: 22,
  name: 'bench-json-order',
  sql: `
ALTER TABLE bench_items ALTER COLUMN item TYPE json USING item::json;
ALTER TABLE bench_contexts ALTER COLUMN context TYPE json USING context::json;
`,
};
