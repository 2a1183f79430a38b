import type { Store } from '@terrarium/db';
import type { BenchRun } from '@terrarium/schema';
import { TRPCError } from '@trpc/server';
import type { ServiceContext } from '../trpc';
import { getRun, requireBench, runnerFor } from './bench-service';
import { judgeGapsAgain } from './judge-again';
import { askingJudgeAgain, stopAsking } from './judge-asking';
import { owedVerdicts } from './judge-owed';
import { isFinishedRun } from '@terrarium/schema';

export async function cancelRun(ctx: ServiceContext, runId: string): Promise<BenchRun> {
  await getRun(ctx, runId);
  await ctx.store.setBenchRunStatus(runId, 'canceled', null, ['queued', 'running']);
  return getRun(ctx, runId);
}

/**
 * Stops the asking of a run's judge under way (a retry asking for its missing verdicts, the pairs
 * judged at the end of a run), once its requests in flight are dropped: the verdicts given so far
 * stay, the others stay missing for a later retry. `stopped` is false when none was under way.
 */
export async function stopJudge(
  ctx: ServiceContext,
  runId: string,
): Promise<{ stopped: boolean; missing: number }> {
  const run = await getRun(ctx, runId);
  const stopped = await stopAsking(ctx.store, run.id);
  return { stopped, missing: await owedVerdicts(ctx.store, await getRun(ctx, runId)) };
}

/**
 * Takes a canceled run up where it stopped: its units not recorded yet are queued again, with the
 * simulators, judge, mode and prompts it was started with; what it recorded stays. Refused, with
 * the reason, for a run that is not canceled and for simulators the workers cannot run now (an
 * endpoint taken off the allowlist since).
 */
export async function resumeRun(ctx: ServiceContext, runId: string): Promise<BenchRun> {
  const run = await getRun(ctx, runId);
  if (run.status !== 'canceled') {
    throw new TRPCError({
      code: 'CONFLICT',
      message: `run ${runId} is ${run.status}: only a canceled run can be resumed`,
    });
  }
  const runner = runnerFor(ctx, run);
  // Conditional, so two resumes (two tabs) queue the run once.
  if (await ctx.store.setBenchRunStatus(runId, 'queued', null, ['canceled'])) {
    await runner.enqueue(runId);
  }
  return getRun(ctx, runId);
}

/**
 * Retries what failed in a run that has ended. Its failed units are predicted once more (an
 * endpoint that answered errors for a while, a judge misconfigured): their failed predictions are
 * forgotten and the run is queued again with the simulators, judge, mode and prompts it was
 * started with; a canceled run also goes on with its units never recorded. Before that, its
 * judge is asked again where a verdict is missing (`judgeGapsAgain`: the predictions are kept).
 * Refused, with the reason, while the run is going, when nothing failed, and while a labeling
 * queue rests on the run (people may have labeled what would be replaced, and their agreement with
 * the judge is measured on the verdicts it has).
 */
export async function retryFailedUnits(ctx: ServiceContext, runId: string): Promise<BenchRun> {
  const run = await getRun(ctx, runId);
  const missing = await owedVerdicts(ctx.store, run);
  // Said as what the user asked for: with nothing failed, the retry is the judge's.
  const what =
    run.failed === 0 && missing > 0
      ? `run ${runId}'s judge cannot be asked again for its ${missing} missing ${missing === 1 ? 'verdict' : 'verdicts'}`
      : `run ${runId}'s failed units cannot be retried`;
  refuseIfHeld([run], await labelQueuesOn(ctx.store, new Set([run.id])), what);
  if (run.failed === 0 && missing === 0) {
    throw new TRPCError({
      code: 'CONFLICT',
      message: `${what}: none failed${run.judge === null ? '' : ' and every judge verdict was read'}`,
    });
  }
  if (missing > 0) await judgeGapsAgain(ctx, run);
  if (run.failed === 0) return getRun(ctx, runId);
  const runner = runnerFor(ctx, run);
  const retried = await ctx.store.retryFailedUnits(run.id);
  if (retried === null) {
    // Resumed, retried or labeled between the checks and the transaction.
    throw new TRPCError({ code: 'CONFLICT', message: `${what}: it changed meanwhile, try again` });
  }
  if (retried > 0) await runner.enqueue(run.id);
  return getRun(ctx, runId);
}

/** The labeling queues that hold people's work on these runs, by run id. */
async function labelQueuesOn(store: Store, runIds: ReadonlySet<string>): Promise<string[]> {
  return (await store.listLabelQueues())
    .filter((queue) => runIds.has(queue.runId))
    .map((queue) => `"${queue.name}" (run ${queue.runId}, ${queue.labels} labels)`);
}

/**
 * Why labeling queues keep a run (or a bench) from going, worded for the user: the queues named
 * as given (`"spot check" (0 labels)`), "a", "a and b", "a, b and c".
 */
export function queuesHoldLabelsText(queues: readonly string[]): string {
  const names =
    queues.length <= 1
      ? (queues[0] ?? '')
      : `${queues.slice(0, -1).join(', ')} and ${queues.at(-1) ?? ''}`;
  return queues.length === 1
    ? `labeling queue ${names} holds people's labels on it; delete the queue first (Labeling page) if they are no longer needed`
    : `labeling queues ${names} hold people's labels on it; delete the queues first (Labeling page) if they are no longer needed`;
}

function refuseIfHeld(runs: readonly BenchRun[], queues: readonly string[], what: string): void {
  // Not finished: workers may still write into it.
  const active = runs.filter((run) => !isFinishedRun(run));
  if (active.length > 0) {
    throw new TRPCError({
      code: 'CONFLICT',
      message: `${what}: run ${active.map((run) => run.id).join(', ')} is still ${active[0]?.status ?? 'running'}; cancel it first`,
    });
  }
  if (queues.length > 0) {
    throw new TRPCError({
      code: 'CONFLICT',
      message: `${what}: ${queuesHoldLabelsText(queues)}`,
    });
  }
}

/** A run whose judge is being asked again (it stays `done` meanwhile) is still written into. */
function refuseWhileJudging(ctx: ServiceContext, runs: readonly BenchRun[], what: string): void {
  const judging = runs.filter((run) => askingJudgeAgain(ctx.store, run.id));
  if (judging.length > 0) {
    throw new TRPCError({
      code: 'CONFLICT',
      message: `${what}: run ${judging.map((run) => run.id).join(', ')}'s judge is being asked again for its missing verdicts; try again once that ends`,
    });
  }
}

export interface DeletedRun {
  deleted: string;
  bench: string;
  benchVersion: number;
  units: number;
}

/**
 * Deletes a finished or canceled run with its predictions, scores and cached leaderboards. Refused
 * while it is queued or running, and while a labeling queue holds labels on it: labels are work
 * people did, never deleted as a side effect.
 */
export async function deleteRun(ctx: ServiceContext, runId: string): Promise<DeletedRun> {
  const run = await getRun(ctx, runId);
  const what = `run ${runId} cannot be deleted`;
  refuseIfHeld([run], await labelQueuesOn(ctx.store, new Set([run.id])), what);
  refuseWhileJudging(ctx, [run], what);
  if (!(await ctx.store.deleteBenchRun(run.id))) {
    // Started or labeled between the checks and the delete.
    throw new TRPCError({ code: 'CONFLICT', message: `${what}: it changed meanwhile, try again` });
  }
  return {
    deleted: run.id,
    bench: run.bench,
    benchVersion: run.benchVersion,
    units: run.done + run.failed,
  };
}

export interface DeletedBench {
  name: string;
  version: number;
  items: number;
  runs: number;
}

/**
 * Deletes one version of a bench with its items and runs; the other versions, and the datasets it
 * was built from, stay. Refused under the same conditions as a run's delete, for any of its runs.
 */
export async function deleteBench(
  ctx: ServiceContext,
  input: { name: string; version: number },
): Promise<DeletedBench> {
  const bench = await requireBench(ctx.store, input.name, input.version);
  const { name, version } = bench.manifest;
  const runs = (await ctx.store.listBenchRuns()).filter(
    (run) => run.bench === name && run.benchVersion === version,
  );
  const what = `bench "${name}" v${version} cannot be deleted`;
  refuseIfHeld(runs, await labelQueuesOn(ctx.store, new Set(runs.map((run) => run.id))), what);
  refuseWhileJudging(ctx, runs, what);
  if (!(await ctx.store.deleteBench(bench.id))) {
    throw new TRPCError({ code: 'CONFLICT', message: `${what}: it changed meanwhile, try again` });
  }
  return { name, version, items: bench.manifest.itemCount, runs: runs.length };
}
