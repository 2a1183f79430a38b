import { setImmediate } from 'node:timers/promises';
import type { Store } from '@terrarium/db';
import type {
  BenchItem,
  BenchRun,
  BenchRunStatus,
  ItemScore,
  JsonValue,
  RunPrediction,
} from '@terrarium/schema';
import type { Prediction, Provenance, Transition } from '@terrarium/worlds';
import type { BenchRunDeps } from './bench-run-deps';
import type { ChunkJob } from './chunk-job';
import type { EndpointLimits } from './endpoint-limits';

export interface ChunkRuntime {
  store: Store;
  deps: BenchRunDeps;
  /** Shared by every job of this worker, so a limit holds across concurrent chunks. */
  limits: EndpointLimits;
  /** Aborts when the worker stops: no new items start, in-flight ones are abandoned. */
  signal?: AbortSignal;
  /** How often a running chunk re-reads its run's status to notice a cancel (default 250 ms). */
  statusPollMs?: number;
  /** Milliseconds since an arbitrary origin, for latencies of failed calls (default performance.now). */
  now?: () => number;
}

export interface ChunkOutcome {
  /** Units this call recorded (a duplicate or retried chunk records 0 for units already done). */
  recorded: number;
  /** Of those, units whose simulator failed. */
  failed: number;
  /** Units left unrecorded because the run was canceled/finished or the worker stopped. */
  abandoned: number;
  /** Why the chunk stopped early, if it did. */
  stoppedBy: 'run-status' | 'worker-stop' | null;
}

const FINISHED: readonly BenchRunStatus[] = ['done', 'failed', 'canceled'];

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function provenanceJson(provenance: Provenance): JsonValue {
  return {
    backend: provenance.backend,
    cache: provenance.cache,
    ...(provenance.model === undefined ? {} : { model: provenance.model }),
    ...(provenance.detail === undefined ? {} : { detail: provenance.detail }),
  };
}

/**
 * Runs the pending units of one chunk: for each item still without a prediction for the chunk's
 * simulator, predict (within the endpoint's limit), score, and record, each unit in its own
 * transaction. A unit already recorded (by a crashed worker's earlier attempt, or by a duplicate
 * chunk) is skipped before predicting and, if two race, the store keeps one.
 *
 * A simulator error is stored as the unit's prediction with `error` set (the run counts it as
 * failed) rather than failing the chunk. A canceled run stops between items and aborts in-flight
 * predictions, leaving them unrecorded.
 */
const yieldToEventLoop = () => setImmediate();

export async function runBenchChunk(runtime: ChunkRuntime, job: ChunkJob): Promise<ChunkOutcome> {
  const { store, deps, limits } = runtime;
  const now = runtime.now ?? (() => performance.now());
  const outcome: ChunkOutcome = { recorded: 0, failed: 0, abandoned: 0, stoppedBy: null };
  const found = await store.getBenchRun(job.runId);
  if (!found || FINISHED.includes(found.status)) {
    return { ...outcome, abandoned: job.itemIds.length, stoppedBy: 'run-status' };
  }
  const run: BenchRun = found;
  await store.setBenchRunStatus(run.id, 'running', null, ['queued']);

  const already = await store.listPredictions(run.id, {
    sim: job.sim,
    itemIds: job.itemIds,
    offset: 0,
    limit: job.itemIds.length,
  });
  const done = new Set(already.rows.map((prediction) => prediction.itemId));
  const pendingIds = job.itemIds.filter((id) => !done.has(id));
  const items = await store.getBenchItemsByIds(
    { name: run.bench, version: run.benchVersion },
    pendingIds,
  );

  const abort = new AbortController();
  const onWorkerStop = () => {
    outcome.stoppedBy ??= 'worker-stop';
    abort.abort(new Error('the worker is stopping'));
  };
  if (runtime.signal?.aborted) onWorkerStop();
  runtime.signal?.addEventListener('abort', onWorkerStop, { once: true });
  // Polling the store rather than listening in-process: the cancel may come from another process.
  const poll = setInterval(() => {
    store.getBenchRun(run.id).then(
      (current) => {
        if (!current || FINISHED.includes(current.status)) {
          outcome.stoppedBy ??= 'run-status';
          abort.abort(new Error(`the run is ${current?.status ?? 'gone'}`));
        }
      },
      () => {},
    );
  }, runtime.statusPollMs ?? 250);

  async function runUnit(item: BenchItem): Promise<void> {
    const release = await limits.acquire(job.sim, abort.signal).catch(() => null);
    if (release === null) {
      outcome.abandoned++;
      return;
    }
    try {
      // Re-checked after the wait: the run may have been canceled while this unit queued.
      const current = await store.getBenchRun(run.id);
      if (!current || FINISHED.includes(current.status)) {
        outcome.stoppedBy ??= 'run-status';
        abort.abort(new Error(`the run is ${current?.status ?? 'gone'}`));
      }
      if (abort.signal.aborted) {
        outcome.abandoned++;
        return;
      }
      const unit = await predictAndScore(run, job.sim, item, deps, abort.signal, now);
      if (unit === null) {
        outcome.abandoned++;
        return;
      }
      if (await store.recordPrediction(unit.prediction, unit.scores)) {
        outcome.recorded++;
        if (unit.prediction.error !== null) outcome.failed++;
      }
    } finally {
      release();
      // PGlite runs in this thread and its queries resolve as microtasks: without a turn of the
      // event loop between units, a run of fast simulators (replay, retrieval) starves every HTTP
      // request (progress, the UI) until it ends.
      await yieldToEventLoop();
    }
  }

  try {
    await Promise.all(items.map(runUnit));
  } finally {
    clearInterval(poll);
    runtime.signal?.removeEventListener('abort', onWorkerStop);
  }
  if (outcome.stoppedBy === null) await store.completeBenchRunIfDrained(run.id);
  return outcome;
}

/** One unit's prediction and scores, or null when it was aborted (left for a later attempt). */
async function predictAndScore(
  run: BenchRun,
  sim: string,
  item: BenchItem,
  deps: BenchRunDeps,
  signal: AbortSignal,
  now: () => number,
): Promise<{ prediction: RunPrediction; scores: ItemScore[] } | null> {
  const started = now();
  const base = { runId: run.id, itemId: item.id, sim };
  let predicted: Prediction;
  try {
    const simulator = await deps.simulatorFor(run, sim, item);
    const history: Transition[] =
      run.mode.kind === 'closed' && deps.historyFor
        ? await deps.historyFor(run, sim, item)
        : item.history;
    predicted = await simulator.predict(
      {
        domain: item.domain,
        task: item.context.task,
        systemPrompt: item.context.systemPrompt,
        tools: item.context.tools,
      },
      history,
      item.action,
      { ...deps.predictOptions, signal },
    );
  } catch (error) {
    if (signal.aborted) return null;
    return {
      prediction: {
        ...base,
        observation: null,
        reasoning: null,
        provenance: { sim },
        latencyMs: Math.max(0, now() - started),
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        error: errorText(error),
      },
      scores: [],
    };
  }
  if (signal.aborted) return null;
  const prediction: RunPrediction = {
    ...base,
    observation: predicted.observation,
    reasoning: predicted.reasoning ?? null,
    provenance: provenanceJson(predicted.provenance),
    latencyMs: predicted.latencyMs,
    usage: {
      inputTokens: predicted.usage.inputTokens,
      outputTokens: predicted.usage.outputTokens,
      costUsd: deps.costOf?.(sim, predicted.usage) ?? 0,
    },
    error: null,
  };
  try {
    return { prediction, scores: await deps.score(item, sim, predicted.observation, run) };
  } catch (error) {
    // A metric that throws is a bug worth seeing on the item, not a reason to lose the prediction.
    return {
      prediction: { ...prediction, error: `scoring failed: ${errorText(error)}` },
      scores: [],
    };
  }
}
