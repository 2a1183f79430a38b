import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from '@terrarium/db';
import {
  replaySufficiency,
  trimReport,
  type SufficiencyReport,
  type TrimOptions,
} from '@terrarium/executable-worlds';
import type { DatasetSummary } from '@terrarium/schema';
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
 * Rebuilds the dataset's terminal worlds and replays them, reporting progress as it goes and
 * letting the server's other requests run between worlds; a report already measured for the same
 * dataset contents is answered at once. Stops early (without a report) when `signal` aborts.
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
  yield { type: 'progress', done: 0, of: summaries.length };
  // Read afresh at each call: the caller may leave at any await.
  const left = (): boolean => signal?.aborted === true;
  const trajectories = await loadListed(store, summaries, signal);
  // Part of the dataset loaded: nothing to measure, and nothing to keep.
  if (left()) return;
  let yielded = performance.now();
  const pause = async (): Promise<void> => {
    // A page left or another dataset chosen: the replay stops at its next command.
    if (left()) throw new Stopped();
    if (performance.now() - yielded < YIELD_AFTER_MS) return;
    await nextTurn();
    yielded = performance.now();
  };
  const replay = replaySufficiency(trajectories, {
    dataset: dataset.name,
    pool: input.pool,
    pause,
  });
  let done = 0;
  let reported = performance.now();
  try {
    for (;;) {
      const next = await replay.next();
      if (next.done === true) {
        remember(store, key, next.value);
        yield { type: 'report', report: answer(next.value, input, names) };
        return;
      }
      done += 1;
      const now = performance.now();
      // Not after the last world: its report comes next.
      if (now - reported >= PROGRESS_EVERY_MS && done < trajectories.length) {
        reported = now;
        yield { type: 'progress', done, of: trajectories.length };
      }
    }
  } catch (error) {
    if (error instanceof Stopped || left()) return;
    throw error;
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
