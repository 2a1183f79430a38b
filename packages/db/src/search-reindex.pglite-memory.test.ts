import { createReadStream } from 'node:fs';
import { readTrajectories } from '@terrarium/formats';
import type { Step, Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlExecutor } from './executor';
import { runMigrations } from './migrate';
import { MIGRATIONS } from './migrations';
import { openOnExecutor } from './open-store';
import { createPgliteExecutor } from './pglite-executor';
import { stepsOfPage } from './step-pages';
import { writePageVectors } from './search-reindex';
import { actionSearchText } from './search-vector';
import { createSqlStore } from './sql-store';
import type { Store } from './store';

// Two real SWE-agent trajectories: pip's coloured warning (`ESC[33;21mprivate argument…`, step 5)
// and its spinner (`-\b \b\\\b \bdone`, step 2), as walk 44 found them.
const COLOURED = sharedDataPath(
  'swe-agent/trajectories/demonstrations/ctf/crypto/BabyTimeCapsule.traj',
);
const SPINNER = sharedDataPath(
  'swe-agent/trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj',
);

async function trajectoriesOf(file: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
  }
  return trajectories;
}

async function importFiles(store: Store): Promise<void> {
  const batch = await store.beginImport('swe-agent');
  await batch.addTrajectories([
    ...(await trajectoriesOf(COLOURED)),
    ...(await trajectoriesOf(SPINNER)),
  ]);
  await batch.commit();
}

/** Where each search matched: [step, field, snippet, highlighted words]. */
async function matches(store: Store, search: string) {
  const page = await store.listTrajectories({ search }, { offset: 0, limit: 10 });
  return page.rows.map((row) => {
    const match = row.match;
    if (match === undefined) return 'no match';
    return [
      match.step,
      match.field,
      match.highlights.map(([from, to]) => match.text.slice(from, to)),
      // oxlint-disable-next-line no-control-regex -- the snippet must hold no control character
      /[\u0000-\u0008\u000b-\u001f]/.test(match.text),
    ];
  });
}

/** What search version 1 stored: every page's vectors over the observations' raw bytes. */
async function indexRawBytes(executor: SqlExecutor): Promise<number> {
  const pages = await executor.query(
    'SELECT trajectory_id::text, first_idx, body, body_json FROM step_pages',
  );
  for (const page of pages) {
    const steps: Step[] = await stepsOfPage(page);
    await writePageVectors(
      executor,
      { trajectoryId: String(page['trajectory_id']), firstIdx: Number(page['first_idx']) },
      steps.map((step) => ({
        action: actionSearchText(step.action),
        reasoning: step.reasoning,
        content: step.observation?.content ?? null,
      })),
    );
  }
  return pages.length;
}

describe('search indexes terminal output as a terminal shows it', () => {
  let executor: SqlExecutor | null = null;
  afterEach(async () => {
    await executor?.close();
    executor = null;
  });

  it('finds a phrase behind a colour code and quotes it without escapes or backspaces', async () => {
    executor = await createPgliteExecutor(undefined);
    const store = await openOnExecutor(executor);
    await importFiles(store);
    expect(await matches(store, '"private argument"')).toEqual([
      [4, 'observation', ['private argument'], false],
    ]);
    expect(await matches(store, '"build dependencies done"')).toEqual([
      [2, 'observation', ['build dependencies ... done'], false],
    ]);
    // The escape's parameters are no longer part of a word.
    expect(await matches(store, '21mprivate')).toEqual([]);
  });

  it('opens at the step that holds the most of the words, and quotes the field that shows most', async () => {
    executor = await createPgliteExecutor(undefined);
    const store = await openOnExecutor(executor);
    await importFiles(store);
    // Step 1's reasoning says "attack" first; step 7's output says "[*] Performing hastads attack.".
    // The snippet starts a little before the words, where the line above ends in "attack.".
    expect(await matches(store, 'Performing hastads attack')).toEqual([
      [7, 'observation', ['attack', 'Performing', 'hastads', 'attack'], false],
    ]);
    expect(await matches(store, 'attack')).toEqual([[1, 'reasoning', ['attack'], false]]);
  });

  it('re-indexes pages stored before (migration 21), once, when the store opens', async () => {
    executor = await createPgliteExecutor(undefined);
    await runMigrations(
      executor,
      MIGRATIONS.filter((migration) => migration.version < 21),
    );
    const before = createSqlStore(executor);
    // This build's import writes the tools column as migration 23 made it (json); the column
    // goes back to its type of then once the rows are in, and the open below migrates it again.
    await executor.query('ALTER TABLE trajectories ALTER COLUMN tools TYPE json');
    await importFiles(before);
    await executor.query(
      'ALTER TABLE trajectories ALTER COLUMN tools TYPE jsonb USING tools::jsonb',
    );
    expect(await indexRawBytes(executor)).toBe(2);
    // As search version 1 left it: the phrase is not found, the glued word is.
    expect(await matches(before, '"private argument"')).toEqual([]);
    expect(await matches(before, '21mprivate')).toHaveLength(1);

    // A page that cannot be read (here the spinner's, its body cut to one byte) keeps its vectors;
    // it must not keep the store from opening, then or at any later open.
    await executor.query(
      `UPDATE step_pages SET body = '\\x01'::bytea
       WHERE trajectory_id = (SELECT max(id) FROM trajectories)`,
    );
    const after = await openOnExecutor(executor);
    expect(await matches(after, '"private argument"')).toEqual([
      [4, 'observation', ['private argument'], false],
    ]);
    expect(await matches(after, '21mprivate')).toEqual([]);
    expect(await executor.query('SELECT * FROM search_reindex')).toEqual([]);
  });
});
