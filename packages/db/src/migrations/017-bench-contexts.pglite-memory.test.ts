import type { BenchItem } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlExecutor } from '../executor';
import { runMigrations } from '../migrate';
import { openOnExecutor } from '../open-store';
import { createPgliteExecutor } from '../pglite-executor';
import { intColumn } from '../row';
import type { Store } from '../store';
import { buildBenchItem, buildBenchManifest } from '../testing';
import { MIGRATIONS } from './index';

// Two trajectories' worth of items per bench: items 0-3 share one context, 4-6 another, as the
// transitions of one trajectory do; the second bench repeats the first one's first context.
const CONTEXTS: BenchItem['context'][] = [
  { task: 'Cancel my pending order', systemPrompt: 'You are a retail agent.', tools: [] },
  {
    task: 'Change my flight',
    systemPrompt: 'You are an airline agent.',
    tools: [
      {
        type: 'function',
        function: { name: 'get_reservation', description: 'Look one up', parameters: {} },
      },
    ],
  },
];
const FIRST = Array.from({ length: 7 }, (_, n) =>
  buildBenchItem(n, { context: CONTEXTS[n < 4 ? 0 : 1] }),
);
const SECOND = Array.from({ length: 3 }, (_, n) =>
  buildBenchItem(10 + n, { context: CONTEXTS[0] }),
);

/** A bench written as migration 16's schema stored it: each item row holds its whole item. */
async function storeAsBefore(executor: SqlExecutor, name: string, items: BenchItem[]) {
  const [bench] = await executor.query(
    `INSERT INTO benches (name, version, manifest) VALUES ($1, 1, $2::jsonb)
     RETURNING id::text AS id`,
    [name, JSON.stringify({ ...buildBenchManifest(name, items), version: 1 })],
  );
  await executor.query(
    `INSERT INTO bench_items (bench_id, ordinal, item_id, task, split, turn_index,
       history_length, item)
     SELECT $1::bigint, x.ordinal, x.item->>'id', x.item->>'task', x.item->>'split',
       (x.item->>'turnIndex')::int, jsonb_array_length(x.item->'history'), x.item
     FROM jsonb_to_recordset($2::jsonb) AS x(ordinal integer, item jsonb)`,
    [bench?.['id'], JSON.stringify(items.map((item, ordinal) => ({ ordinal, item })))],
  );
}

describe('migration 17 (a bench context stored once)', () => {
  let executor: SqlExecutor;
  let store: Store;

  beforeAll(async () => {
    executor = await createPgliteExecutor(undefined);
    await runMigrations(
      executor,
      MIGRATIONS.filter((migration) => migration.version < 17),
    );
    await storeAsBefore(executor, 'first', FIRST);
    await storeAsBefore(executor, 'second', SECOND);
    store = await openOnExecutor(executor);
  });
  afterAll(async () => {
    await store.close();
  });

  it('keeps each distinct context of a bench once, and every item reads as it was', async () => {
    const counts = await executor.query(
      `SELECT b.name, count(*)::int AS contexts FROM bench_contexts c
       JOIN benches b ON b.id = c.bench_id GROUP BY b.name ORDER BY b.name`,
    );
    expect(counts.map((row) => [row['name'], intColumn(row, 'contexts')])).toEqual([
      ['first', 2],
      ['second', 1],
    ]);
    const [withContext] = await executor.query(
      // (json since migration 22, which keeps the keys' order.)
      `SELECT count(*)::int AS n FROM bench_items WHERE item::jsonb ? 'context'`,
    );
    expect(withContext && intColumn(withContext, 'n')).toBe(0);

    const first = await store.getBenchItems({ name: 'first' }, { offset: 0, limit: 100 });
    expect(first.rows).toEqual(FIRST);
    // The context back in its place among the item's fields, as an export writes them.
    expect(first.rows.map((item) => Object.keys(item))).toEqual(
      FIRST.map((item) => Object.keys(item)),
    );
    const second = await store.getBenchItemsByIds({ name: 'second' }, ['item-12', 'item-10']);
    expect(second).toEqual([SECOND[0], SECOND[2]]);
  });

  it('stores a new bench the same way', async () => {
    await store.createBench(buildBenchManifest('third', FIRST), FIRST);
    const [row] = await executor.query(
      `SELECT count(*)::int AS n FROM bench_contexts c JOIN benches b ON b.id = c.bench_id
       WHERE b.name = 'third'`,
    );
    expect(row && intColumn(row, 'n')).toBe(2);
    const third = await store.getBenchItems({ name: 'third' }, { offset: 2, limit: 3 });
    expect(third.rows).toEqual(FIRST.slice(2, 5));
  });
});
