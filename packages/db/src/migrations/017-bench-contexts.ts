import type { Migration } from './migration';

/**
 * A bench item's context (task text, system prompt, tool schemas) stored once per bench, not once
 * per item. Every transition of a trajectory shares its context, and on tau2-bench the context is
 * 78% of an item's bytes (the domain policy and the tools): the 1,043 items of the three tau2
 * result files held 20 MB of contexts, 100 distinct. A run reads its items in chunks, so it read
 * those megabytes again for every unit (benchmarks/bench-pages.ts).
 *
 * `context_no` numbers a bench's distinct contexts from 0; the item row keeps everything else.
 */
export const benchContexts: Migration = {
  version: 17,
  name: 'bench-contexts',
  sql: `
CREATE TABLE bench_contexts (
  bench_id bigint NOT NULL REFERENCES benches (id) ON DELETE CASCADE,
  context_no integer NOT NULL CHECK (context_no >= 0),
  context jsonb NOT NULL,
  PRIMARY KEY (bench_id, context_no)
);
ALTER TABLE bench_items ADD COLUMN context_no integer;
WITH numbered AS (
  SELECT bench_id, ordinal,
    dense_rank() OVER (PARTITION BY bench_id ORDER BY (item->'context')::text)::int - 1 AS n
  FROM bench_items
)
UPDATE bench_items i SET context_no = numbered.n
FROM numbered WHERE i.bench_id = numbered.bench_id AND i.ordinal = numbered.ordinal;
INSERT INTO bench_contexts (bench_id, context_no, context)
  SELECT DISTINCT ON (bench_id, context_no) bench_id, context_no, item->'context'
  FROM bench_items ORDER BY bench_id, context_no;
UPDATE bench_items SET item = item - 'context';
ALTER TABLE bench_items ALTER COLUMN context_no SET NOT NULL;
ALTER TABLE bench_items ADD FOREIGN KEY (bench_id, context_no)
  REFERENCES bench_contexts (bench_id, context_no);
`,
};
