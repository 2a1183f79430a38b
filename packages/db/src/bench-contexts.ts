import { BenchItem } from '@terrarium/schema';
import type { Queryable, Row } from './executor';
import { StatementChunks } from './import-batch';
import { toJsonPayload } from './json-payload';
import { intColumn, jsonColumn } from './row';

type ItemContext = BenchItem['context'];

/** What a `bench_items.item` holds: the item without its context (migration 17). */
const StoredItem = BenchItem.omit({ context: true });

/**
 * A parsed context stays right as long as its bench exists (benches never change once stored),
 * so contexts read once are kept; bounded, oldest first out, so a long-lived server holds only
 * the benches it works on (a tau2-bench context is ~20 KB).
 */
const CACHED_CONTEXTS = 512;

/**
 * Bench items without their contexts in the item rows, and with them on the way out: what a
 * bench stores once per distinct context (`bench_contexts`) is joined back here, in one place
 * for every read of items (pages, chunks of a run, a cell's page).
 */
export interface BenchContexts {
  /** `bench_contexts` and `bench_items` rows of a new bench (inside its transaction). */
  write(tx: Queryable, benchId: string, items: readonly BenchItem[]): Promise<void>;
  /** Each row holding `item` and `context_no` with its whole item, in the rows' order. */
  withItems(
    q: Queryable,
    benchId: string,
    rows: readonly Row[],
  ): Promise<Array<{ row: Row; item: BenchItem }>>;
}

function keyOf(benchId: string, contextNo: number): string {
  return `${benchId}:${contextNo}`;
}

export function createBenchContexts(): BenchContexts {
  const cache = new Map<string, ItemContext>();

  async function contextsOf(
    q: Queryable,
    benchId: string,
    numbers: ReadonlySet<number>,
  ): Promise<Map<number, ItemContext>> {
    const found = new Map<number, ItemContext>();
    const missing: number[] = [];
    for (const contextNo of numbers) {
      const cached = cache.get(keyOf(benchId, contextNo));
      if (cached === undefined) missing.push(contextNo);
      else found.set(contextNo, cached);
    }
    if (missing.length > 0) {
      const rows = await q.query(
        `SELECT context_no, context FROM bench_contexts
         WHERE bench_id = $1::bigint AND context_no = ANY($2::int[])`,
        [benchId, missing],
      );
      for (const row of rows) {
        const contextNo = intColumn(row, 'context_no');
        const context = BenchItem.shape.context.parse(jsonColumn(row, 'context'));
        found.set(contextNo, context);
        cache.set(keyOf(benchId, contextNo), context);
      }
      while (cache.size > CACHED_CONTEXTS) {
        const oldest = cache.keys().next();
        if (oldest.done === true) break;
        cache.delete(oldest.value);
      }
    }
    return found;
  }

  return {
    async write(tx, benchId, items) {
      const numbers = new Map<string, number>();
      const contexts = new StatementChunks();
      const rows = new StatementChunks();
      items.forEach((item, ordinal) => {
        const { context, ...stored } = item;
        const key = JSON.stringify(context);
        let contextNo = numbers.get(key);
        if (contextNo === undefined) {
          contextNo = numbers.size;
          numbers.set(key, contextNo);
          contexts.add(toJsonPayload({ context_no: contextNo, context }));
        }
        rows.add(
          toJsonPayload({
            ordinal,
            item_id: item.id,
            task: item.task,
            split: item.split,
            turn_index: item.turnIndex,
            history_length: item.history.length,
            context_no: contextNo,
            item: stored,
          }),
        );
      });
      for (const payload of contexts.flush()) {
        await tx.query(
          `INSERT INTO bench_contexts (bench_id, context_no, context)
           SELECT $2::bigint, x.context_no, x.context
           FROM json_to_recordset($1::json) AS x(context_no integer, context json)`,
          [payload, benchId],
        );
      }
      for (const payload of rows.flush()) {
        await tx.query(
          `INSERT INTO bench_items (bench_id, ordinal, item_id, task, split, turn_index,
             history_length, context_no, item)
           SELECT $2::bigint, x.ordinal, x.item_id, x.task, x.split, x.turn_index,
             x.history_length, x.context_no, x.item
           FROM json_to_recordset($1::json) AS x(ordinal integer, item_id text, task text,
             split text, turn_index integer, history_length integer, context_no integer,
             item json)`,
          [payload, benchId],
        );
      }
    },

    async withItems(q, benchId, rows) {
      const contexts = await contextsOf(
        q,
        benchId,
        new Set(rows.map((row) => intColumn(row, 'context_no'))),
      );
      return rows.map((row) => {
        const contextNo = intColumn(row, 'context_no');
        const context = contexts.get(contextNo);
        if (context === undefined) {
          throw new Error(`bench ${benchId} has no context ${contextNo}`);
        }
        const stored = StoredItem.parse(jsonColumn(row, 'item'));
        // In the schema's order, as the item was before its context moved out: its JSON (an
        // export, a prompt built from it) reads the same.
        const item: BenchItem = {
          id: stored.id,
          task: stored.task,
          domain: stored.domain,
          split: stored.split,
          origin: stored.origin,
          turnIndex: stored.turnIndex,
          totalTurns: stored.totalTurns,
          context,
          history: stored.history,
          action: stored.action,
          real: stored.real,
        };
        return { row, item };
      });
    },
  };
}
