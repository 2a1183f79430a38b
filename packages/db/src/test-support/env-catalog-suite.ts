import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../store';
import type { StoreHarness, StoreLocation } from './harnesses';

const TASK = {
  id: 'demo.fs_1-0',
  goal: 'Count the files',
  world: { id: 'demo:fs_1-0', params: {} },
  // A NUL cannot be stored in jsonb: it comes back as U+2400, like every other JSON column.
  oracle: ['printf "a\u0000b"'],
};
const REPORT = { taskId: 'demo.fs_1-0', accepted: true, gates: [], reasons: [] };

/** The environment catalog's contract (worlds and gated tasks), run against each backend. */
export function describeEnvCatalogSuite(harness: StoreHarness): void {
  describe(`environment catalog store (${harness.name})`, () => {
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

    it('saves worlds and tasks, replaces by id, lists oldest first, deletes', async () => {
      expect(await store.listEnvWorlds()).toEqual([]);
      await store.saveEnvWorld({
        id: 'demo:fs_1-0',
        kind: 'trajectory',
        description: 'first',
        spec: { dataset: '1', trajectory: 'fs_1-0' },
      });
      await store.saveEnvWorld({
        id: 'demo:fs_1-1',
        kind: 'trajectory',
        description: 'second',
        spec: { dataset: '1', trajectory: 'fs_1-1' },
      });
      await store.saveEnvWorld({
        id: 'demo:fs_1-0',
        kind: 'trajectory',
        description: 'first, rebuilt',
        spec: { dataset: '2', trajectory: 'fs_1-0' },
      });
      const worlds = await store.listEnvWorlds();
      expect(
        worlds.map((world) => ({
          id: world.id,
          kind: world.kind,
          description: world.description,
          spec: world.spec,
        })),
      ).toEqual([
        {
          id: 'demo:fs_1-0',
          kind: 'trajectory',
          description: 'first, rebuilt',
          spec: { dataset: '2', trajectory: 'fs_1-0' },
        },
        {
          id: 'demo:fs_1-1',
          kind: 'trajectory',
          description: 'second',
          spec: { dataset: '1', trajectory: 'fs_1-1' },
        },
      ]);
      expect(worlds[0]?.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      await store.saveEnvTask({
        id: TASK.id,
        worldId: TASK.world.id,
        task: TASK,
        gateReport: REPORT,
      });
      const saved = await store.getEnvTask(TASK.id);
      expect(saved).toMatchObject({
        id: 'demo.fs_1-0',
        worldId: 'demo:fs_1-0',
        task: { ...TASK, oracle: ['printf "a\u2400b"'] },
        gateReport: REPORT,
      });
      await store.saveEnvTask({
        id: TASK.id,
        worldId: TASK.world.id,
        task: { ...TASK, goal: 'Count the files again' },
        gateReport: REPORT,
      });
      await store.saveEnvTask({ id: 'b', worldId: 'scratch', task: { id: 'b' }, gateReport: {} });
      const tasks = await store.listEnvTasks();
      expect(tasks.map((task) => [task.id, task.worldId])).toEqual([
        ['demo.fs_1-0', 'demo:fs_1-0'],
        ['b', 'scratch'],
      ]);
      expect(tasks[0]?.task).toMatchObject({ goal: 'Count the files again' });
      expect(tasks[0]?.createdAt).toBe(saved?.createdAt);

      expect(await store.deleteEnvTask('b')).toBe(true);
      expect(await store.deleteEnvTask('b')).toBe(false);
      expect(await store.getEnvTask('b')).toBeNull();
      expect((await store.listEnvTasks()).map((task) => task.id)).toEqual(['demo.fs_1-0']);
    });

    // Only a store on disk can be reopened; an in-memory one has nothing to reopen, so the case is
    // not declared there (rather than listed as skipped).
    const itOnDisk = harness.persistent ? it : () => undefined;
    itOnDisk('keeps worlds and tasks across a reopen', async () => {
      await store.close();
      store = await location.open();
      expect((await store.listEnvWorlds()).map((world) => world.id)).toEqual([
        'demo:fs_1-0',
        'demo:fs_1-1',
      ]);
      expect((await store.listEnvTasks()).map((task) => task.id)).toEqual(['demo.fs_1-0']);
    });
  });
}
