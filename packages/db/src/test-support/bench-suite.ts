import type { ItemScore, RunPrediction } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Store } from '../store';
import { buildBenchItem, buildBenchManifest, RETAIL_TOOLS } from '../testing';
import type { StoreHarness, StoreLocation } from './harnesses';

/** 10 items: 0-7 in `test`, 8-9 in `dev`. */
const ITEMS = Array.from({ length: 10 }, (_, n) =>
  buildBenchItem(n, n >= 8 ? { split: 'dev' } : {}),
);

function prediction(runId: string, itemId: string, sim: string, error: string | null = null) {
  const result: RunPrediction = {
    runId,
    itemId,
    sim,
    observation:
      error === null ? { kind: 'json', content: `{"echo":"${itemId}"}`, callId: null } : null,
    reasoning: null,
    provenance: { backend: 'replay', cache: 'hit' },
    latencyMs: 12.5,
    usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.25 },
    error,
  };
  return result;
}

function ruleScore(itemId: string, sim: string, metric: string, value: number): ItemScore {
  return { itemId, sim, source: 'rule', metric, value, detail: null };
}

function judge(value: number): ItemScore {
  return {
    itemId: 'item-0',
    sim: 'replay',
    source: 'judge',
    metric: 'factuality',
    value,
    detail: { reasoning: `raw ${value * 4 + 1}` },
  };
}

export function describeBenchStoreSuite(harness: StoreHarness): void {
  describe(`${harness.name}: benches and bench runs`, () => {
    let location: StoreLocation;
    let store: Store;
    beforeAll(async () => {
      location = await harness.createLocation();
      store = await location.open();
    }, 120_000);
    afterAll(async () => {
      await store.close();
      await location.dispose();
    });

    it('freezes benches: a rebuild under the same name is the next version, the first is unchanged', async () => {
      const first = await store.createBench(buildBenchManifest('retail', ITEMS), ITEMS);
      const fewer = ITEMS.slice(0, 3);
      const second = await store.createBench(buildBenchManifest('retail', fewer), fewer);
      const other = await store.createBench(buildBenchManifest('airline', fewer), fewer);
      expect([first.manifest.version, second.manifest.version, other.manifest.version]).toEqual([
        1, 2, 1,
      ]);
      expect((await store.getBench('retail'))?.id).toBe(second.id);
      expect((await store.getBench('retail', 1))?.manifest).toEqual({
        ...buildBenchManifest('retail', ITEMS),
        version: 1,
      });
      expect(await store.getBench('retail', 3)).toBeNull();
      expect((await store.listBenches()).map((b) => [b.manifest.name, b.manifest.version])).toEqual(
        [
          ['airline', 1],
          ['retail', 1],
          ['retail', 2],
        ],
      );
      const testPage = await store.getBenchItems(
        { name: 'retail', version: 1 },
        { split: 'test', offset: 2, limit: 3 },
      );
      expect(testPage.total).toBe(8);
      expect(testPage.rows).toEqual(ITEMS.slice(2, 5));
      const dev = await store.getBenchItems(
        { benchId: first.id },
        { split: 'dev', offset: 0, limit: 50 },
      );
      expect(dev.rows.map((item) => item.id)).toEqual(['item-8', 'item-9']);
      expect(await store.countBenchItems({ name: 'retail' })).toBe(3);
      expect(await store.countBenchItems({ benchId: first.id }, 'test')).toBe(8);
      expect(
        (await store.getBenchItemsByIds({ benchId: first.id }, ['item-9', 'nope', 'item-1'])).map(
          (item) => item.id,
        ),
      ).toEqual(['item-1', 'item-9']);
    });

    it('pages a bench in build order or by item id', async () => {
      const reversed = ITEMS.toReversed();
      await store.createBench(buildBenchManifest('reversed', reversed), reversed);
      const ids = async (order?: 'build' | 'id') =>
        (
          await store.getBenchItems(
            { name: 'reversed' },
            { split: 'test', offset: 1, limit: 3, ...(order === undefined ? {} : { order }) },
          )
        ).rows.map((item) => item.id);
      expect(await ids()).toEqual(['item-6', 'item-5', 'item-4']);
      expect(await ids('build')).toEqual(['item-6', 'item-5', 'item-4']);
      expect(await ids('id')).toEqual(['item-1', 'item-2', 'item-3']);
    });

    it("keeps each object's keys in the agent's order: actions, tool schemas, observations", async () => {
      // jsonb would return these keys shortest first (`zip`, `last_name`, `first_name`): the
      // prompts built from a stored item then differed from the trajectory's own text.
      const items = [0, 1].map((n) =>
        buildBenchItem(n, {
          context: {
            task: 'Find me',
            systemPrompt: 'You are a retail agent.',
            tools: RETAIL_TOOLS,
          },
        }),
      );
      await store.createBench(buildBenchManifest('ordered', items), items);
      const stored = await store.getBenchItems({ name: 'ordered' }, { offset: 0, limit: 10 });
      expect(stored.rows.map((item) => JSON.stringify(item))).toEqual(
        items.map((item) => JSON.stringify(item)),
      );
      expect(JSON.stringify(stored.rows[0]?.history[0]?.action)).toBe(
        '{"type":"tool_call","name":"find_user_id_by_name_zip",' +
          '"arguments":{"first_name":"Mia","last_name":"Li","zip":"94108"},"callId":"call_find_0"}',
      );
    });

    it('stores nothing for a bench whose manifest does not match its items', async () => {
      const bad = { ...buildBenchManifest('broken', ITEMS), itemCount: 11 };
      await expect(store.createBench(bad, ITEMS)).rejects.toThrow(
        'bench broken: the manifest counts 11 items but 10 were given',
      );
      const twice = [ITEMS[0], ITEMS[0]].flatMap((item) => (item ? [item] : []));
      await expect(store.createBench(buildBenchManifest('broken', twice), twice)).rejects.toThrow(
        'bench broken: item item-0 appears twice',
      );
      expect(await store.getBench('broken')).toBeNull();
    });

    it('records each (item, sim) once, counts exactly, and finishes the run with its last unit', async () => {
      const run = await store.createBenchRun({
        bench: 'retail',
        benchVersion: 1,
        sims: ['replay', 'retrieval'],
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      });
      expect(run).toMatchObject({
        status: 'queued',
        total: 16,
        done: 0,
        failed: 0,
        bench: 'retail',
      });
      expect(await store.pendingWork(run.id, 'replay', 3)).toEqual(['item-0', 'item-1', 'item-2']);

      const scores = [
        ruleScore('item-0', 'replay', 'exact', 1),
        ruleScore('item-0', 'replay', 'token_f1', 1),
      ];
      expect(await store.recordPrediction(prediction(run.id, 'item-0', 'replay'), scores)).toBe(
        true,
      );
      // A retried chunk: the same unit again, with different scores, changes nothing.
      expect(
        await store.recordPrediction(prediction(run.id, 'item-0', 'replay'), [
          ruleScore('item-0', 'replay', 'exact', 0),
        ]),
      ).toBe(false);
      expect(
        await store.recordPrediction(prediction(run.id, 'item-1', 'replay', 'endpoint down'), []),
      ).toBe(true);
      const afterTwo = await store.getBenchRun(run.id);
      expect(afterTwo).toMatchObject({
        done: 1,
        failed: 1,
        usage: { inputTokens: 200, outputTokens: 40, costUsd: 0.5 },
        status: 'queued',
        finishedAt: null,
      });
      expect(await store.pendingWork(run.id, 'replay', 100)).toHaveLength(6);
      expect(await store.pendingWork(run.id, 'retrieval', 100)).toHaveLength(8);

      // The same unit from two callers at once: exactly one records it.
      const racing = await Promise.all([
        store.recordPrediction(prediction(run.id, 'item-2', 'replay'), [
          ruleScore('item-2', 'replay', 'exact', 1),
        ]),
        store.recordPrediction(prediction(run.id, 'item-2', 'replay'), [
          ruleScore('item-2', 'replay', 'exact', 1),
        ]),
      ]);
      expect(racing.filter(Boolean)).toHaveLength(1);

      await expect(
        store.recordPrediction(prediction(run.id, 'item-3', 'onnx:/models/x'), []),
      ).rejects.toThrow(`bench run ${run.id} does not run onnx:/models/x`);
      await expect(
        store.recordPrediction(prediction(run.id, 'item-3', 'replay'), [
          ruleScore('item-4', 'replay', 'exact', 1),
        ]),
      ).rejects.toThrow(
        'score rule/exact is for (item-4, replay), not for the prediction (item-3, replay)',
      );

      for (const sim of ['replay', 'retrieval']) {
        for (const itemId of await store.pendingWork(run.id, sim, 100)) {
          expect(await store.recordPrediction(prediction(run.id, itemId, sim), [])).toBe(true);
        }
      }
      const finished = await store.getBenchRun(run.id);
      expect(finished).toMatchObject({ status: 'done', done: 15, failed: 1, total: 16 });
      expect(finished?.finishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(await store.completeBenchRunIfDrained(run.id)).toBe(false);

      const predictions = await store.listPredictions(run.id, {
        sim: 'replay',
        offset: 0,
        limit: 3,
      });
      expect(predictions.total).toBe(8);
      expect(predictions.rows[0]).toEqual(prediction(run.id, 'item-0', 'replay'));
      expect(predictions.rows[1]?.error).toBe('endpoint down');
      const picked = await store.listPredictions(run.id, {
        itemIds: ['item-7', 'item-9'],
        offset: 0,
        limit: 10,
      });
      expect(picked.rows.map((p) => [p.sim, p.itemId])).toEqual([
        ['replay', 'item-7'],
        ['retrieval', 'item-7'],
      ]);
      expect((await store.listScores(run.id, { offset: 0, limit: 10 })).rows).toEqual([
        ruleScore('item-0', 'replay', 'exact', 1),
        ruleScore('item-0', 'replay', 'token_f1', 1),
        ruleScore('item-2', 'replay', 'exact', 1),
      ]);
    });

    it('keeps judge and human scores apart from rule scores; re-judging replaces the judge score', async () => {
      const run = await store.createBenchRun({
        bench: 'airline',
        sims: ['replay'],
        judge: null,
        mode: { kind: 'closed', steps: 2 },
        split: 'test',
      });
      expect(run).toMatchObject({ total: 3, mode: { kind: 'closed', steps: 2 }, benchVersion: 1 });
      await store.recordPrediction(prediction(run.id, 'item-0', 'replay'), [
        ruleScore('item-0', 'replay', 'factuality', 0.5),
      ]);
      expect(await store.addScores(run.id, [judge(0.75)])).toBe(1);
      expect(await store.addScores(run.id, [judge(0.25), { ...judge(1), source: 'human' }])).toBe(
        2,
      );
      const factuality = await store.listScores(run.id, {
        metric: 'factuality',
        offset: 0,
        limit: 10,
      });
      expect(factuality.rows.map((s) => [s.source, s.value])).toEqual([
        ['human', 1],
        ['judge', 0.25],
        ['rule', 0.5],
      ]);
      expect(
        (await store.listScores(run.id, { source: 'judge', offset: 0, limit: 10 })).rows,
      ).toEqual([judge(0.25)]);
    });

    it('changes a run status only from the allowed ones, and lists runs newest first', async () => {
      const run = await store.createBenchRun({
        bench: 'airline',
        sims: ['retrieval'],
        judge: null,
        mode: { kind: 'open' },
        split: 'dev',
      });
      expect(run.total).toBe(0);
      expect(await store.setBenchRunStatus(run.id, 'running', null, ['queued'])).toBe(true);
      expect(await store.setBenchRunStatus(run.id, 'running', null, ['queued'])).toBe(false);
      expect(await store.setBenchRunStatus(run.id, 'canceled', 'stopped by the user')).toBe(true);
      expect(await store.completeBenchRunIfDrained(run.id)).toBe(false);
      const canceled = await store.getBenchRun(run.id);
      expect(canceled).toMatchObject({ status: 'canceled', error: 'stopped by the user' });
      expect(canceled?.finishedAt).not.toBeNull();
      expect((await store.listBenchRuns('airline')).map((r) => r.id)).toEqual([
        run.id,
        String(Number(run.id) - 1),
      ]);
      expect(await store.listBenchRuns('nothing')).toEqual([]);
      expect(await store.getBenchRun('not-an-id')).toBeNull();
      await expect(
        store.createBenchRun({
          bench: 'nothing',
          sims: ['replay'],
          judge: null,
          mode: { kind: 'open' },
          split: 'test',
        }),
      ).rejects.toThrow('no bench nothing');
      await expect(
        store.createBenchRun({
          bench: 'airline',
          sims: ['replay', 'replay'],
          judge: null,
          mode: { kind: 'open' },
          split: 'test',
        }),
      ).rejects.toThrow('a bench run names each simulator once; got replay, replay');
    });

    it("gives a deleted run's pages to the next run instead of growing", async () => {
      const pages = async () => {
        const { rows } = await store
          .jobDb()
          .executeSql(
            `SELECT (pg_total_relation_size('run_scores') + pg_total_relation_size('run_predictions'))::int / 8192 AS n`,
          );
        return z.array(z.object({ n: z.number() })).parse(rows)[0]?.n ?? -1;
      };
      // Every unit of the split with 40 scores of 1 KB detail each: hundreds of pages.
      const finishedRun = async () => {
        const run = await store.createBenchRun({
          bench: 'retail',
          benchVersion: 1,
          sims: ['replay'],
          judge: null,
          mode: { kind: 'open' },
          split: 'test',
        });
        for (const itemId of await store.pendingWork(run.id, 'replay', 100)) {
          const scores = Array.from({ length: 40 }, (_, m) => ({
            ...ruleScore(itemId, 'replay', `m${m}`, 0.5),
            detail: { note: 'x'.repeat(1024) },
          }));
          await store.recordPrediction(prediction(run.id, itemId, 'replay'), scores);
        }
        expect((await store.getBenchRun(run.id))?.status).toBe('done');
        return run.id;
      };
      const before = await pages();
      const first = await finishedRun();
      const once = await pages();
      expect(await store.deleteBenchRun(first)).toBe(true);
      await finishedRun();
      const again = await pages();
      // Before, the deleted run's pages were never used again: the same run took as many more.
      expect(once - before).toBeGreaterThan(20);
      expect(again - once).toBeLessThan((once - before) / 4);
    });

    it('gives the job queue SQL access: parameterised statements and multi-statement scripts', async () => {
      const db = store.jobDb();
      await db.executeSql(
        'BEGIN; CREATE TABLE job_probe (n int); INSERT INTO job_probe VALUES (1), (2); COMMIT',
      );
      expect(
        (await db.executeSql('SELECT sum(n)::int AS total FROM job_probe WHERE n >= $1', [1])).rows,
      ).toEqual([{ total: 3 }]);
      expect((await db.executeSql('SELECT count(*)::int AS n FROM job_probe')).rows).toEqual([
        { n: 2 },
      ]);
      // A failing script that opened a transaction leaves the connection usable.
      await expect(
        db.executeSql('BEGIN; INSERT INTO job_probe VALUES (3); SELECT 1/0; COMMIT'),
      ).rejects.toThrow(/division by zero/);
      expect((await db.executeSql('SELECT count(*)::int AS n FROM job_probe')).rows).toEqual([
        { n: 2 },
      ]);
      // Every bench version made above: retail v1 and v2, airline, reversed, ordered.
      expect(await store.listBenches()).toHaveLength(5);
    });
  });
}
