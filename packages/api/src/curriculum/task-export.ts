import {
  CurriculumCheckpoint,
  curriculumTasks,
  evolvableWorldFactory,
  exportTasks,
  type CurriculumTaskSelection,
  type TaskExport,
  type TaskFormat,
} from '@terrarium/curriculum';
import type { Store } from '@terrarium/db';
import { SimulatorError } from '../simulate/simulator-error';
import { curriculumSeeds } from './curriculum-deps';

/**
 * A curriculum run's tasks as JSONL or Harbor folders, as of its last recorded generation: the
 * worlds are rebuilt from the run's dataset the way the run built them, so a task exported here
 * is the task its rollouts played. Errors name the field (`runId`) as a bad request would.
 */
export async function exportCurriculumTasks(
  store: Store,
  runId: string,
  format: TaskFormat,
  selection: CurriculumTaskSelection,
): Promise<TaskExport> {
  const run = await store.getCurriculumRun(runId);
  if (run === null) throw new SimulatorError('runId', `no curriculum run ${runId}`, 404);
  const stored = await store.getCurriculumCheckpoint(run.id);
  if (stored === null)
    throw new SimulatorError(
      'runId',
      `run ${run.id} has recorded no generation yet: its tasks are made as it plays`,
    );
  const checkpoint = CurriculumCheckpoint.parse(stored);
  const seeds = await curriculumSeeds(store, run.dataset);
  // Built once per task exported: the cache would keep every workspace of the run alive.
  const createWorld = evolvableWorldFactory(seeds.worlds, { cacheSize: 0 });
  return exportTasks(curriculumTasks(run.id, checkpoint, createWorld, selection), format);
}
