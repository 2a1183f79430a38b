import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../store';
import type { StoreHarness, StoreLocation } from './harnesses';

const SETTINGS = { policy: 'scripted', scheduler: 'lineage', probes: 8, sim: null };

/** The curriculum run store's contract, run against each backend. */
export function describeCurriculumStoreSuite(harness: StoreHarness): void {
  describe(`curriculum run store (${harness.name})`, () => {
    let location: StoreLocation;
    let store: Store;
    beforeAll(async () => {
      location = await harness.createLocation();
      store = await location.open();
    }, 60_000);
    afterAll(async () => {
      await store.close();
      await location.dispose();
    });

    it('creates a queued run named for its rollouts dataset and lists it newest first', async () => {
      const first = await store.createCurriculumRun({
        dataset: 'builtin',
        settings: SETTINGS,
        generations: 3,
      });
      const second = await store.createCurriculumRun({
        dataset: 'icb',
        settings: { ...SETTINGS, sim: 'retrieval' },
        generations: 2,
      });
      expect(first).toMatchObject({
        dataset: 'builtin',
        settings: SETTINGS,
        status: 'queued',
        generationsTotal: 3,
        generationsDone: 0,
        rolloutsDataset: `curriculum-${first.id}-rollouts`,
        error: null,
        finishedAt: null,
      });
      expect(first.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const listed = await store.listCurriculumRuns();
      expect(listed.slice(0, 2).map((run) => run.id)).toEqual([second.id, first.id]);
      expect(await store.getCurriculumRun('nope')).toBeNull();
      expect(await store.getCurriculumCheckpoint(first.id)).toBeNull();
    });

    it('records each generation once, in order, with its checkpoint', async () => {
      const run = await store.createCurriculumRun({
        dataset: 'builtin',
        settings: SETTINGS,
        generations: 2,
      });
      // Not running yet: nothing is recorded.
      expect(
        await store.recordCurriculumGeneration(run.id, 1, { passRate: 1 }, { generation: 1 }),
      ).toBe(false);
      expect(await store.setCurriculumRunStatus(run.id, 'running', null, ['queued'])).toBe(true);
      expect(await store.setCurriculumRunStatus(run.id, 'running', null, ['queued'])).toBe(false);
      // Out of order, and twice (a second worker holding the same run): refused.
      expect(await store.recordCurriculumGeneration(run.id, 2, {}, {})).toBe(false);
      const twice = await Promise.all([
        store.recordCurriculumGeneration(run.id, 1, { passRate: 1 }, { generation: 1 }),
        store.recordCurriculumGeneration(run.id, 1, { passRate: 0.5 }, { generation: 1 }),
      ]);
      expect(twice.toSorted()).toEqual([false, true]);
      expect(await store.getCurriculumRun(run.id)).toMatchObject({
        status: 'running',
        generationsDone: 1,
      });
      expect(await store.getCurriculumCheckpoint(run.id)).toEqual({ generation: 1 });
      expect(
        await store.recordCurriculumGeneration(
          run.id,
          2,
          { passRate: 0.75, note: 'nul \u0000 kept out' },
          { generation: 2 },
        ),
      ).toBe(true);
      expect(await store.getCurriculumRun(run.id)).toMatchObject({
        status: 'running',
        generationsDone: 2,
        finishedAt: null,
      });
      expect(await store.setCurriculumRunStatus(run.id, 'done', null, ['running'])).toBe(true);
      const done = await store.getCurriculumRun(run.id);
      expect(done).toMatchObject({ status: 'done', generationsDone: 2 });
      expect(done?.finishedAt).not.toBeNull();
      const generations = await store.listCurriculumGenerations(run.id);
      expect(generations.map((g) => g.generation)).toEqual([1, 2]);
      expect(generations[1]?.stats).toEqual({ passRate: 0.75, note: 'nul \u2400 kept out' });
      expect([1, 0.5]).toContainEqual(
        typeof generations[0]?.stats === 'object' &&
          generations[0]?.stats !== null &&
          'passRate' in generations[0].stats
          ? generations[0].stats.passRate
          : null,
      );
    });

    it('a canceled run records nothing more and keeps its checkpoint', async () => {
      const run = await store.createCurriculumRun({
        dataset: 'builtin',
        settings: SETTINGS,
        generations: 4,
      });
      await store.setCurriculumRunStatus(run.id, 'running');
      expect(await store.recordCurriculumGeneration(run.id, 1, {}, { generation: 1 })).toBe(true);
      expect(
        await store.setCurriculumRunStatus(run.id, 'canceled', null, ['queued', 'running']),
      ).toBe(true);
      expect(await store.recordCurriculumGeneration(run.id, 2, {}, { generation: 2 })).toBe(false);
      expect(await store.getCurriculumRun(run.id)).toMatchObject({
        status: 'canceled',
        generationsDone: 1,
      });
      expect(await store.getCurriculumCheckpoint(run.id)).toEqual({ generation: 1 });
    });
  });
}
