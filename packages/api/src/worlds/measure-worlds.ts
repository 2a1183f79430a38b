import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from '@terrarium/db';
import {
  replaySufficiency,
  trimReport,
  type SufficiencyReport,
  type TrimOptions,
} from '@terrarium/executable-worlds';
import type { DatasetSummary, TrajectorySummary } from '@terrarium/schema';
import { findDataset } from '../simulate/find-trajectory';
import { listDatasetTrajectories, loadListed } from '../simulate/load-trajectories';

export interface WorldsInput extends Omit<TrimOptions, 'maxChars'> {
  dataset: string;
  pool: boolean;
}

/** A report as the API sends it: each trajectory also named by the id its file gave it. */
export type WorldsReport = Omit<SufficiencyReport, 'trajectories'> & {
  trajectories: (SufficiencyReport['trajectories'][number] & { name: string })[];
};

export type WorldsEvent =
  /** `done` of `of` worlds replayed so far. */
  { type: 'progress'; done: number; of: number } | { type: 'report'; report: WorldsReport };

/** Longest recorded or replayed text sent per mismatch. */
const MAX_CHARS = 4000;
/** Replay runs on the server's one thread: it lets requests in at least this often. */
const YIELD_AFTER_MS = 20;
/** Progress events at most this often. */
const PROGRESS_EVERY_MS = 200;
/** Reports kept per store: a few datasets switched between on the Worlds page. */
const CACHED_REPORTS = 4;

/**
 * Reports already measured, whole (before trimming), per store, keyed by dataset, its size and the
 * pooling: replaying takes seconds (just-bash runs every command), while the answer changes only
 * when the dataset does. Its counts key it because a dataset only grows (an import appends
 * trajectories; nothing deletes or edits one in place, and a deleted dataset's id is never given
 * again): a way to change a dataset in place would need a version in this key.
 */
const cache = new WeakMap<Store, Map<string, SufficiencyReport>>();

function cacheKey(dataset: DatasetSummary, pool: boolean): string {
  return JSON.stringify([dataset.id, dataset.trajectories, dataset.steps, pool]);
}

function remember(store: Store, key: string, report: SufficiencyReport): void {
  const reports = cache.get(store) ?? new Map<string, SufficiencyReport>();
  reports.delete(key);
  reports.set(key, report);
  for (const oldest of reports.keys()) {
    if (reports.size <= CACHED_REPORTS) break;
    reports.delete(oldest);
  }
  cache.set(store, reports);
}

/** The report as one request asked for it, each trajectory also named by its file's id. */
function answer(
  report: SufficiencyReport,
  input: WorldsInput,
  names: ReadonlyMap<string, string>,
): WorldsReport {
  const trimmed = trimReport(report, { ...input, maxChars: MAX_CHARS });
  // Loaded trajectories carry their store id (the replay's), so the report's `id` is that; the
  // page names each mismatch's trajectory by the id its file gave it.
  return {
    ...trimmed,
    trajectories: trimmed.trajectories.map((trajectory) => ({
      ...trajectory,
      name: names.get(trajectory.id) ?? trajectory.id,
    })),
  };
}

class Stopped extends Error {
  override name = 'Stopped';
}

/**
 * A replay under way, shared by every caller that asks for the same dataset contents meanwhile
 * (two tabs, the page and the CLI): the dataset is replayed once. It stops when its last caller
 * leaves.
 */
interface Measurement {
  /** Worlds replayed so far, of `of`. */
  done: number;
  readonly of: number;
  /** The whole report; null when every caller left before it was done. */
  readonly result: Promise<SufficiencyReport | null>;
  /** Settles when `done` changes or the replay ends. */
  changed(): Promise<void>;
  join(): void;
  leave(): void;
}

const running = new WeakMap<Store, Map<string, Measurement>>();

function ignore(): void {}

/** A promise and what settles it (Node 20 has no `Promise.withResolvers`). */
function nextChange(): { promise: Promise<void>; resolve: () => void } {
  let resolve = ignore;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Replays in progress on this store (what the tests check sharing with). */
export function replaysInFlight(store: Store): number {
  return running.get(store)?.size ?? 0;
}

function startMeasurement(
  store: Store,
  key: string,
  dataset: DatasetSummary,
  summaries: readonly TrajectorySummary[],
  pool: boolean,
): Measurement {
  const stop = new AbortController();
  let callers = 0;
  let wake = nextChange();
  const progressed = (): void => {
    const woken = wake;
    wake = nextChange();
    woken.resolve();
  };
  const measurement: Measurement = {
    done: 0,
    of: summaries.length,
    result: replayAll(),
    changed: () => wake.promise,
    join: () => {
      callers += 1;
    },
    leave: () => {
      callers -= 1;
      if (callers > 0) return;
      stop.abort();
      // At once: a caller arriving now starts a replay of its own, not joins one that is stopping.
      forget();
    },
  };
  const inFlight = running.get(store) ?? new Map<string, Measurement>();
  inFlight.set(key, measurement);
  running.set(store, inFlight);
  // Settled here too, so that a failure nobody waits for any more is not an unhandled rejection.
  measurement.result.catch(() => undefined);
  return measurement;

  function forget(): void {
    if (running.get(store)?.get(key) === measurement) running.get(store)?.delete(key);
  }

  async function replayAll(): Promise<SufficiencyReport | null> {
    try {
      const trajectories = await loadListed(store, summaries, stop.signal);
      // Part of the dataset loaded: nothing to measure, and nothing to keep.
      if (stop.signal.aborted) return null;
      let yielded = performance.now();
      const pause = async (): Promise<void> => {
        // Every caller left: the replay stops at its next command.
        if (stop.signal.aborted) throw new Stopped();
        if (performance.now() - yielded < YIELD_AFTER_MS) return;
        await nextTurn();
        yielded = performance.now();
      };
      const replay = replaySufficiency(trajectories, { dataset: dataset.name, pool, pause });
      for (;;) {
        const next = await replay.next();
        if (next.done === true) {
          remember(store, key, next.value);
          return next.value;
        }
        measurement.done += 1;
        progressed();
      }
    } catch (error) {
      if (error instanceof Stopped) return null;
      throw error;
    } finally {
      forget();
      progressed();
    }
  }
}

/**
 * Rebuilds the dataset's terminal worlds and replays them, reporting progress as it goes and
 * letting the server's other requests run between worlds; a report already measured for the same
 * dataset contents is answered at once, and one being measured is shared. Stops early (without a
 * report) when `signal` aborts; the replay itself stops when no caller is left.
 */
export async function* measureWorlds(
  store: Store,
  input: WorldsInput,
  signal?: AbortSignal,
): AsyncGenerator<WorldsEvent, void, undefined> {
  const dataset = await findDataset(store, input.dataset);
  const key = cacheKey(dataset, input.pool);
  const summaries = await listDatasetTrajectories(store, dataset.id);
  const names = new Map(summaries.map((summary) => [summary.id, summary.externalId]));
  const cached = cache.get(store)?.get(key);
  if (cached !== undefined) {
    remember(store, key, cached);
    yield { type: 'report', report: answer(cached, input, names) };
    return;
  }
  if (signal?.aborted === true) return;
  const measurement =
    running.get(store)?.get(key) ?? startMeasurement(store, key, dataset, summaries, input.pool);
  measurement.join();
  let joined = true;
  const leave = (): void => {
    if (joined) measurement.leave();
    joined = false;
  };
  // Left at once, even while this generator waits at a `yield` its caller never resumes.
  let onAbort = ignore;
  const left = new Promise<'left'>((resolve) => {
    onAbort = () => {
      leave();
      resolve('left');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  // Built once: a reaction per loop turn would pile up on a long replay.
  const finished = measurement.result.then((report) => ({ report }));
  // A failure after this caller left is nobody's to handle here (the race below rethrows it).
  finished.catch(() => undefined);
  try {
    yield { type: 'progress', done: measurement.done, of: measurement.of };
    let reported = performance.now();
    for (;;) {
      const changed = measurement.changed();
      const outcome = await Promise.race([finished, changed.then(() => 'progress' as const), left]);
      if (outcome === 'left') return;
      if (outcome !== 'progress') {
        if (outcome.report === null) return;
        yield { type: 'report', report: answer(outcome.report, input, names) };
        return;
      }
      const now = performance.now();
      // Not after the last world: its report comes next.
      if (now - reported >= PROGRESS_EVERY_MS && measurement.done < measurement.of) {
        reported = now;
        yield { type: 'progress', done: measurement.done, of: measurement.of };
      }
    }
  } finally {
    // The caller's signal may live on (a server's request): it keeps nothing of this replay.
    signal?.removeEventListener('abort', onAbort);
    leave();
  }
}

/** The report alone, for a caller that waits for it whole (the CLI, programs). */
export async function measureWorldsReport(
  store: Store,
  input: WorldsInput,
  signal?: AbortSignal,
): Promise<WorldsReport | null> {
  for await (const event of measureWorlds(store, input, signal))
    if (event.type === 'report') return event.report;
  return null;
}
