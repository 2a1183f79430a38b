import { setMaxListeners } from 'node:events';
import { setImmediate } from 'node:timers/promises';
import type { RecordedUnit, Store } from '@terrarium/db';
import type {
  BenchItem,
  BenchRun,
  BenchRunStatus,
  ItemScore,
  JsonValue,
  RunPrediction,
} from '@terrarium/schema';
import {
  answeredOrThrow,
  EndpointError,
  simContextOfItem,
  type Prediction,
  type Provenance,
  type Transition,
} from '@terrarium/worlds';
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
  /**
   * Runs a chunk of this worker has seen finished (canceled, failed, done), shared by the worker's
   * chunks like `limits`: a unit that waited for its endpoint slot looks here before predicting.
   */
  finishedRuns?: FinishedRuns;
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

/**
 * What a worker's chunks have learnt of their runs' ends. An endpoint slot is shared by all chunks
 * of a worker, and it frees early mostly because another chunk saw its run canceled and aborted its
 * prediction: the unit that gets the slot then learns of the cancel here, without a query per unit
 * (a replay-only run of 1,043 units read its run's status 3,257 times when each unit did).
 */
export class FinishedRuns {
  private readonly ended = new Map<string, string>();

  /** Why the run ended (`the run is canceled`), or undefined while it may still run. */
  reason(runId: string): string | undefined {
    return this.ended.get(runId);
  }

  /** The run goes again (a canceled run resumed): what was learnt of its end no longer holds. */
  forget(runId: string): void {
    this.ended.delete(runId);
  }

  saw(runId: string, status: BenchRunStatus | 'gone'): void {
    this.ended.set(runId, `the run is ${status}`);
    // A long-lived worker sees many runs; only recent ends can still matter to a waiting unit.
    if (this.ended.size > 1000) {
      const oldest = this.ended.keys().next();
      if (oldest.done !== true) this.ended.delete(oldest.value);
    }
  }
}

/**
 * What a failed prediction cost: not known (null) when its endpoint call timed out, since a server
 * that took the request may have generated all along; nothing when it was refused, unreachable or
 * answered with an error (walk 48: results lines said 0 for all, the README null for all).
 */
function failedUnitCost(error: unknown): number | null {
  return error instanceof EndpointError && error.kind === 'timeout' ? null : 0;
}

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

/** Units recorded per transaction at most, and how long a finished unit waits for others. */
const MAX_BATCH = 256;
const BATCH_WAIT_MS = 100;

/**
 * Records finished units in batches, one transaction each (`store.recordPredictions`): a flush
 * when MAX_BATCH units wait or BATCH_WAIT_MS after the first of them, one flush at a time. One
 * transaction per unit measured 8-16 ms a unit on PGlite, ten times what a replay unit's scoring
 * costs; a crash loses at most the batch in flight, whose units are then simply not recorded
 * (resume predicts exactly those again).
 */
class UnitBatcher {
  private waiting: RecordedUnit[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly store: Store,
    private readonly outcome: ChunkOutcome,
  ) {}

  add(unit: RecordedUnit): void {
    this.waiting.push(unit);
    if (this.waiting.length >= MAX_BATCH) this.flushNow();
    else this.timer ??= setTimeout(() => this.flushNow(), BATCH_WAIT_MS);
  }

  private flushNow(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.flushing = this.flushing.then(async () => {
      if (this.failure !== null) return;
      try {
        const { recorded, failed } = await this.store.recordPredictions(batch);
        this.outcome.recorded += recorded;
        this.outcome.failed += failed;
      } catch (error) {
        this.failure = error;
      }
    });
  }

  /** Records what is waiting and rethrows a failed flush (the chunk then fails and is retried). */
  async drain(): Promise<void> {
    this.flushNow();
    await this.flushing;
    if (this.failure !== null) throw this.failure;
  }
}

/**
 * Runs the pending units of one chunk: for each item still without a prediction for the chunk's
 * simulator, predict (within the endpoint's limit), score, and record, in batches of units that
 * each commit in one transaction (`UnitBatcher`). A unit already recorded (by a crashed worker's
 * earlier attempt, or by a duplicate chunk) is skipped before predicting and, if two race, the
 * store keeps one.
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
  // The run is live as of this read: a cancel this worker saw before was undone by a resume, and
  // its units would otherwise be abandoned one by one, leaving the run `running` for ever.
  runtime.finishedRuns?.forget(run.id);
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

  const batcher = new UnitBatcher(store, outcome);
  const statusPollMs = runtime.statusPollMs ?? 250;
  let statusSeenAt = now();
  const abort = new AbortController();
  // Every unit in flight (and its endpoint slot and HTTP request) listens on this one signal; the
  // default cap of 10 listeners would warn at any concurrency above 10 without a leak.
  setMaxListeners(0, abort.signal);
  const onWorkerStop = () => {
    outcome.stoppedBy ??= 'worker-stop';
    abort.abort(new Error('the worker is stopping'));
  };
  if (runtime.signal?.aborted) onWorkerStop();
  runtime.signal?.addEventListener('abort', onWorkerStop, { once: true });
  const finishedRuns = runtime.finishedRuns ?? new FinishedRuns();
  const stopForRun = (reason: string) => {
    outcome.stoppedBy ??= 'run-status';
    abort.abort(new Error(reason));
  };
  const noteStatus = (current: BenchRun | null) => {
    statusSeenAt = now();
    if (!current || FINISHED.includes(current.status)) {
      // Recorded before the abort, whose freed slots wake other chunks' units.
      finishedRuns.saw(run.id, current?.status ?? 'gone');
      stopForRun(`the run is ${current?.status ?? 'gone'}`);
    }
  };
  // Polling the store rather than listening in-process: the cancel may come from another process.
  const poll = setInterval(() => {
    store.getBenchRun(run.id).then(noteStatus, () => {});
  }, statusPollMs);

  async function runUnit(item: BenchItem): Promise<void> {
    const release = await limits.acquire(job.sim, abort.signal).catch(() => null);
    if (release === null) {
      outcome.abandoned++;
      return;
    }
    try {
      // A slot that freed because another chunk of this worker saw the run end: stop here. A
      // cancel from elsewhere is seen by this chunk's poll, or here when the poll has fallen
      // behind (PGlite busy with a long statement).
      const ended = finishedRuns.reason(run.id);
      if (ended !== undefined) stopForRun(ended);
      else if (now() - statusSeenAt > statusPollMs) noteStatus(await store.getBenchRun(run.id));
      if (abort.signal.aborted) {
        outcome.abandoned++;
        return;
      }
      const unit = await predictAndScore(run, job.sim, item, deps, abort.signal, now);
      if (unit === null) {
        outcome.abandoned++;
        return;
      }
      batcher.add(unit);
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
    // Units that finished before a cancel or a stop are recorded, as they were one by one.
    await batcher.drain();
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
    // A miss of replay or retrieval fails the unit: left out of every mean, counted as failed.
    predicted = answeredOrThrow(
      await simulator.predict(simContextOfItem(item), history, item.action, {
        ...deps.predictOptions,
        signal,
      }),
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
        usage: { inputTokens: 0, outputTokens: 0, costUsd: failedUnitCost(error) },
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
      costUsd: deps.costOf === undefined ? 0 : deps.costOf(sim, predicted.usage),
    },
    error: null,
  };
  try {
    const { scores, judgeUsage } = await deps.score(item, sim, predicted.observation, run, signal);
    return {
      prediction: judgeUsage === undefined ? prediction : { ...prediction, judgeUsage },
      scores,
    };
  } catch (error) {
    // A judging cut short by a cancel: the unit is judged again when the run resumes.
    if (signal.aborted) return null;
    // A metric that throws is a bug worth seeing on the item, not a reason to lose the prediction.
    return {
      prediction: { ...prediction, error: `scoring failed: ${errorText(error)}` },
      scores: [],
    };
  }
}
