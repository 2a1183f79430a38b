import type { Step } from '@terrarium/schema';
import type { Queryable, Row, SqlExecutor } from './executor';
import { toJsonPayload } from './json-payload';
import { intColumn, textColumn } from './row';
import { observationSearchText, stepSearchFields, type StepSearchFields } from './search-vector';
import { stepsOfPage } from './step-pages';

// Pages re-indexed per transaction: small enough that an interrupted open loses little work.
const PAGES_PER_BATCH = 64;

/** A step page's key. */
export interface PageKey {
  trajectoryId: string;
  firstIdx: number;
}

/**
 * Rewrites a page's step vectors and its lexemes from the texts given per step, with the database's
 * own `terrarium_search_vector` (exact by definition; only pages stored before search version 2
 * come here, so the JavaScript tokenizer's speed is not needed).
 */
export async function writePageVectors(
  executor: Pick<Queryable, 'query'>,
  key: PageKey,
  texts: readonly StepSearchFields[],
): Promise<void> {
  await executor.query(
    `WITH v AS (
       SELECT x.o, terrarium_search_vector(x.a, x.r, x.c) AS vector
       FROM json_to_recordset($3::json) AS x(o integer, a text, r text, c text))
     UPDATE step_pages SET
       search = ARRAY(SELECT vector FROM v ORDER BY o),
       lexemes = array_to_tsvector(ARRAY(
         SELECT DISTINCT l FROM v, unnest(tsvector_to_array(v.vector)) AS l))
     WHERE trajectory_id = $1::bigint AND first_idx = $2`,
    [
      key.trajectoryId,
      key.firstIdx,
      toJsonPayload(
        texts.map((text, o) => ({ o, a: text.action, r: text.reasoning, c: text.content })),
      ),
    ],
  );
}

function showsDifferently(steps: readonly Step[]): boolean {
  return steps.some(
    (step) =>
      step.observation !== null &&
      observationSearchText(step.observation) !== step.observation.content,
  );
}

/**
 * Re-indexes the pages migration 21 listed (`search_reindex`) as search version 2 does: pages
 * with an observation a terminal shows differently from its bytes get new vectors, the rest keep
 * theirs. Each batch takes its pages off the list in the transaction that rewrites them, so a
 * process killed part-way leaves the rest listed for the next open, and two processes opening one
 * PostgreSQL database share the list (SKIP LOCKED). Returns how many pages were rewritten.
 */
export async function reindexTerminalText(executor: SqlExecutor): Promise<number> {
  let rewritten = 0;
  for (;;) {
    const batch = await executor.transaction(async (tx) => {
      const keys = await tx.query(
        `DELETE FROM search_reindex r USING (
           SELECT trajectory_id, first_idx FROM search_reindex
           ORDER BY trajectory_id, first_idx LIMIT $1 FOR UPDATE SKIP LOCKED) k
         WHERE r.trajectory_id = k.trajectory_id AND r.first_idx = k.first_idx
         RETURNING r.trajectory_id::text AS trajectory_id, r.first_idx`,
        [PAGES_PER_BATCH],
      );
      if (keys.length === 0) return null;
      const pages = await tx.query(
        `SELECT p.trajectory_id::text AS trajectory_id, p.first_idx, p.body, p.body_json
         FROM step_pages p
         JOIN unnest($1::bigint[], $2::int[]) AS k(t, f)
           ON p.trajectory_id = k.t AND p.first_idx = k.f`,
        [
          keys.map((key) => textColumn(key, 'trajectory_id')),
          keys.map((key) => intColumn(key, 'first_idx')),
        ],
      );
      let changed = 0;
      for (const page of pages) {
        const texts = await indexedTextsOf(page);
        if (texts === null) continue;
        const key = {
          trajectoryId: textColumn(page, 'trajectory_id'),
          firstIdx: intColumn(page, 'first_idx'),
        };
        await writePageVectors(tx, key, texts);
        changed++;
      }
      return changed;
    });
    if (batch === null) break;
    rewritten += batch;
  }
  // As after an import: the rewritten lexemes wait in the GIN index's pending list until merged.
  if (rewritten > 0) {
    await executor.query("SELECT gin_clean_pending_list('step_pages_lexemes'::regclass)");
  }
  return rewritten;
}

/**
 * A page's texts as search version 2 indexes them, or null when they are what it holds already,
 * or when the page cannot be read (a body that does not inflate or parse): that page keeps the
 * vectors it has, and the open goes on.
 */
async function indexedTextsOf(page: Row): Promise<StepSearchFields[] | null> {
  try {
    const steps = await stepsOfPage(page);
    return showsDifferently(steps) ? steps.map(stepSearchFields) : null;
  } catch {
    return null;
  }
}
