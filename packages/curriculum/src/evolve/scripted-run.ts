import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { Task } from '../tasks/task';
import type { RunCurriculumOptions } from './curriculum';
import { scriptedPolicy } from './policy';
import { bandScheduler, lineageScheduler } from './schedulers';
import type { SeedTasks } from './seed-tasks';
import { evolvableEmptyWorlds, evolvableWorldFactory, SCRATCH_EVOLVABLE } from './world-source';

/** The scratch tasks on their scratch world: the demo's seeds, needing no dataset. */
export function builtinSeedTasks(): SeedTasks {
  return {
    tasks: BUILTIN_TASKS.map((task) => Task.parse(task)),
    worlds: [SCRATCH_EVOLVABLE],
    rejected: [],
  };
}

export interface ScriptedRunSettings {
  scheduler: 'lineage' | 'band';
  probes: number;
  maxDepth: number;
  seed: number;
}

/** How the CLI and the UI play a curriculum: the scripted policy over the seeds' own worlds. */
export function scriptedRunOptions(
  seeds: SeedTasks,
  settings: ScriptedRunSettings,
): RunCurriculumOptions {
  return {
    createWorld: evolvableWorldFactory(seeds.worlds),
    emptyWorld: evolvableEmptyWorlds(seeds.worlds),
    policy: scriptedPolicy(),
    scheduler: settings.scheduler === 'band' ? bandScheduler() : lineageScheduler(),
    probes: settings.probes,
    maxDepth: settings.maxDepth,
    seed: settings.seed,
  };
}
