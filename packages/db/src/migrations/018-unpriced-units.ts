import type { Migration } from './migration';

/**
 * A prediction's cost is NULL when it is not known: an `openai:` simulator with no price configured
 * (TERRARIUM_PRICING), or one that reported no token usage. A run counts such units
 * (`unpriced_units`) and its cost is unknown while any exists, where it used to read $0.00 in every
 * JSON a script reads (`bench runs --json`, results lines).
 *
 * Before this migration an unpriced endpoint's predictions were stored at 0; a successful
 * `openai:` prediction at exactly 0 had no price (a priced one with tokens costs more than 0), so
 * those become NULL and their runs count them.
 */
export const unpricedUnits: Migration = {
  version: 18,
  name: 'unpriced-units',
  sql: `
ALTER TABLE run_predictions ALTER COLUMN cost_usd DROP NOT NULL;
ALTER TABLE run_predictions ALTER COLUMN cost_usd DROP DEFAULT;
ALTER TABLE bench_runs ADD COLUMN unpriced_units integer NOT NULL DEFAULT 0;
UPDATE run_predictions SET cost_usd = NULL
WHERE sim LIKE 'openai:%' AND error IS NULL AND cost_usd = 0;
UPDATE bench_runs r SET unpriced_units = counted.n
FROM (SELECT run_id, count(*)::int AS n FROM run_predictions WHERE cost_usd IS NULL GROUP BY run_id)
  AS counted
WHERE counted.run_id = r.id;
`,
};
