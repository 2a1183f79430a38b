import type { Store } from '@terrarium/db';
import { trajectoryWorldEntry, type EnvPersistence, type WorldEntry } from '@terrarium/curriculum';
import { z } from 'zod';
import { loadDataset } from '../simulate/load-trajectories';

const TrajectoryRecipe = z.object({ dataset: z.string().min(1), trajectory: z.string().min(1) });

/**
 * The environment catalog over the store: accepted tasks and trajectory worlds are saved as they
 * are built; on start each saved world is reconstructed again from its stored trajectory (one read
 * per dataset), and saved tasks come back without re-running their gates.
 */
export function storeEnvPersistence(store: Store): EnvPersistence {
  return {
    saveTask: (task, report) =>
      store.saveEnvTask({ id: task.id, worldId: task.world.id, task, gateReport: report }),
    async deleteTask(id) {
      await store.deleteEnvTask(id);
    },
    saveWorld: (recipe) => store.saveEnvWorld(recipe),
    async load() {
      const skipped: { id: string; reason: string }[] = [];
      const byDataset = new Map<
        string,
        { id: string; trajectory: string; description: string }[]
      >();
      for (const world of await store.listEnvWorlds()) {
        const spec = TrajectoryRecipe.safeParse(world.spec);
        if (world.kind !== 'trajectory' || !spec.success) {
          skipped.push({ id: world.id, reason: `unknown world recipe (${world.kind})` });
          continue;
        }
        const list = byDataset.get(spec.data.dataset) ?? [];
        list.push({
          id: world.id,
          trajectory: spec.data.trajectory,
          description: world.description,
        });
        byDataset.set(spec.data.dataset, list);
      }
      const worlds: WorldEntry[] = [];
      const datasets =
        byDataset.size === 0
          ? new Set<string>()
          : new Set((await store.listDatasets()).map((dataset) => dataset.id));
      for (const [dataset, recipes] of byDataset) {
        if (!datasets.has(dataset)) {
          for (const recipe of recipes)
            skipped.push({ id: recipe.id, reason: `its dataset ${dataset} was deleted` });
          continue;
        }
        const trajectories = new Map(
          (await loadDataset(store, dataset)).map((trajectory) => [
            trajectory.externalId,
            trajectory,
          ]),
        );
        for (const recipe of recipes) {
          const trajectory = trajectories.get(recipe.trajectory);
          if (trajectory === undefined) {
            skipped.push({
              id: recipe.id,
              reason: `no trajectory ${recipe.trajectory} in ${dataset}`,
            });
            continue;
          }
          worlds.push({
            ...trajectoryWorldEntry(trajectory, recipe.id),
            description: recipe.description,
          });
        }
      }
      const tasks = (await store.listEnvTasks()).map((saved) => ({
        id: saved.id,
        task: saved.task,
      }));
      return { worlds, tasks, skipped };
    },
  };
}
