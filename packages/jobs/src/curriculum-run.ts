import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  CurriculumCheckpoint,
  evolvableEmptyWorlds,
  evolvableWorldFactory,
  rolloutTrajectory,
  runCurriculum,
  type GenerationStats,
  type Policy,
  type RolloutSimulator,
  type SeedTasks,
  type Task,
  bandScheduler,
  lineageScheduler,
} from '@terrarium/curriculum';
import type { CurriculumRunRecord, Store } from '@terrarium/db';
import type { Trajectory } from '@terrarium/schema';
import { z } from 'zod';

/** The pg-boss queue curriculum runs go through: one job per run (a run is sequential). */
export const CURRICULUM_RUN_QUEUE = 'curriculum-run';

export const CurriculumJob = z.object({ runId: z.string() });
export type CurriculumJob = z.infer<typeof CurriculumJob>;

/** What a run was started with; stored with the run, so a resumed run plays the same curriculum. */
export const CurriculumRunSettings = z.object({
  /** `scripted`, `onnx:PATH` (a policy model folder) or `openai:URL#MODEL`. */
  policy: z.string().min(1).max(500).default('scripted'),
  /** A simulator spec (`replay`, `retrieval`, `onnx:…`, `openai:…`): each probe runs again in it. */
  sim: z.string().min(1).max(500).nullable().default(null),
  scheduler: z.enum(['lineage', 'band']).default('lineage'),
  probes: z.number().int().min(1).max(32).default(8),
  maxDepth: z.number().int().min(1).max(15).default(15),
  seed: z.number().int().default(0),
});
export type CurriculumRunSettings = z.infer<typeof CurriculumRunSettings>;

/** What a run needs from outside the domain code: the seed tasks, the policy and the simulator. */
export interface CurriculumRunDeps {
  seedsFor(run: CurriculumRunRecord): Promise<SeedTasks>;
  /** Async: a model policy loads its weights first. */
  policyFor(spec: string): Promise<Policy>;
  /** The simulator standing in for the world on `task`, for runs with `sim`. */
  simulatorFor(spec: string, run: CurriculumRunRecord, task: Task): Promise<RolloutSimulator>;
}

export interface CurriculumRunOutcome {
  /** Generations this call recorded. */
  recorded: number;
  stoppedBy: 'done' | 'canceled' | 'lost' | 'worker-stop' | 'failed';
}

class RunStopped extends Error {
  override readonly name = 'RunStopped';
}

/**
 * Plays a stored curriculum run from its last checkpoint to the end: each generation's figures
 * and checkpoint are recorded in one transaction that only the holder of generation g-1 can make
 * (so a duplicate job stops instead of forking the lineages), then its rollouts are stored as
 * trajectories of the run's rollouts dataset. A cancel is noticed between rollouts; `signal`
 * (the worker stopping) leaves the run running for the next start to resume.
 */
export async function executeCurriculumRun(
  store: Store,
  runId: string,
  deps: CurriculumRunDeps,
  options: {
    signal?: AbortSignal;
    statusPollMs?: number;
    /** Called after a generation and its rollouts are stored (the CLI prints it). */
    onGeneration?: (stats: GenerationStats) => void;
  } = {},
): Promise<CurriculumRunOutcome> {
  const run = await store.getCurriculumRun(runId);
  if (run === null) throw new Error(`no curriculum run ${runId}`);
  if (run.status !== 'queued' && run.status !== 'running')
    return { recorded: 0, stoppedBy: run.status === 'canceled' ? 'canceled' : 'done' };
  await store.setCurriculumRunStatus(runId, 'running', null, ['queued']);
  let recorded = 0;
  let canceled = false;
  const poll = setInterval(() => {
    void store.getCurriculumRun(runId).then(
      (current) => {
        if (current?.status === 'canceled') canceled = true;
      },
      () => {},
    );
  }, options.statusPollMs ?? 500);
  try {
    const settings = CurriculumRunSettings.parse(run.settings);
    const seeds = await deps.seedsFor(run);
    if (seeds.tasks.length === 0)
      throw new Error(
        `no task of ${run.dataset} passes its gates (${seeds.rejected.length} rejected)`,
      );
    const stored = await store.getCurriculumCheckpoint(runId);
    const resume = stored === null ? undefined : CurriculumCheckpoint.parse(stored);
    const policy = await deps.policyFor(settings.policy);
    const sim = settings.sim;
    const pending: Trajectory[] = [];
    let stats: GenerationStats | null = null;
    const stopIfAsked = () => {
      if (canceled) throw new RunStopped('canceled');
      if (options.signal?.aborted === true) throw new RunStopped('worker-stop');
    };
    await runCurriculum(seeds.tasks, run.generationsTotal, {
      createWorld: evolvableWorldFactory(seeds.worlds),
      emptyWorld: evolvableEmptyWorlds(seeds.worlds),
      policy,
      scheduler: settings.scheduler === 'band' ? bandScheduler() : lineageScheduler(),
      probes: settings.probes,
      maxDepth: settings.maxDepth,
      seed: settings.seed,
      ...(resume === undefined ? {} : { resume }),
      ...(sim === null ? {} : { simulatorFor: (task: Task) => deps.simulatorFor(sim, run, task) }),
      onRollout: (played, origin) => {
        stopIfAsked();
        pending.push(
          rolloutTrajectory({
            rollout: played,
            origin,
            runId,
            policy: policy.name,
            sim: origin.mode === 'simulated' ? sim : null,
          }),
        );
      },
      onGeneration: (generation) => {
        stats = generation;
      },
      onCheckpoint: async (checkpoint) => {
        if (stats === null) throw new Error('a checkpoint without its generation');
        const won = await store.recordCurriculumGeneration(
          runId,
          checkpoint.generation,
          stats,
          checkpoint,
        );
        if (!won) throw new RunStopped(canceled ? 'canceled' : 'lost');
        recorded += 1;
        const batch = await store.beginImport(run.rolloutsDataset);
        try {
          await batch.addTrajectories(pending.splice(0));
          await batch.commit();
        } catch (error) {
          await batch.abort().catch(() => undefined);
          throw error;
        }
        options.onGeneration?.(stats);
        stats = null;
        // Let timers and I/O run (the status poll that sees a cancel, the server's requests):
        // PGlite's queries and in-process rollouts never leave the microtask queue, so a run
        // would otherwise hold the thread from its first generation to its last.
        await yieldToEventLoop();
        stopIfAsked();
      },
    });
    // A cancel that came after the last generation leaves the run canceled.
    await store.setCurriculumRunStatus(runId, 'done', null, ['running']);
    return { recorded, stoppedBy: 'done' };
  } catch (error) {
    if (error instanceof RunStopped) {
      const reason = error.message;
      if (reason === 'canceled' || reason === 'lost' || reason === 'worker-stop')
        return { recorded, stoppedBy: reason };
    }
    const message = error instanceof Error ? error.message : String(error);
    await store.setCurriculumRunStatus(runId, 'failed', message, ['queued', 'running']);
    return { recorded, stoppedBy: 'failed' };
  } finally {
    clearInterval(poll);
  }
}
