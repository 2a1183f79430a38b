import { setImmediate } from 'node:timers/promises';
import { groupIntervals, type GroupAggregate, type Interval } from '@terrarium/bench';
import type { ScoreGroup, Store } from '@terrarium/db';
import { siblingModule, startWorkerThread } from '@terrarium/jobs';
import { BootstrapReply, type BootstrapRequest } from './bootstrap-protocol';

/** Items per statement when a run's values are read: each statement stays short at any run size. */
const VALUES_PAGE_ITEMS = 500;

/**
 * Below this many random draws (values × resamples) a bootstrap runs on the calling thread, in
 * steps of one group: tens of milliseconds, less than starting a worker thread costs.
 */
export const INLINE_DRAWS = 5_000_000;

export interface IntervalOptions {
  bootstrap: number;
  seed: number;
  /** Stops reading and resampling (the server is shutting down). */
  signal?: AbortSignal;
  /** Draws up to which the bootstrap runs on this thread (default `INLINE_DRAWS`). */
  inlineDraws?: number;
}

export function groupKey(group: ScoreGroup): string {
  return JSON.stringify([group.sim, group.source, group.metric]);
}

/**
 * Every group's values per task, read a page of items at a time with a turn of the event loop
 * between pages: on PGlite the store runs on this thread, which also serves every request.
 */
export async function readRunStrata(
  store: Store,
  runId: string,
  signal?: AbortSignal,
): Promise<Map<string, Map<string, number[]>>> {
  const strata = new Map<string, Map<string, number[]>>();
  let after: number | null = null;
  do {
    signal?.throwIfAborted();
    const page = await store.runScoreValues(runId, { after, limit: VALUES_PAGE_ITEMS });
    for (const group of page.groups) {
      const key = groupKey(group);
      let tasks = strata.get(key);
      if (tasks === undefined) {
        tasks = new Map();
        strata.set(key, tasks);
      }
      const values = tasks.get(group.task);
      if (values === undefined) tasks.set(group.task, group.values);
      else for (const value of group.values) values.push(value);
    }
    after = page.next;
    await setImmediate();
  } while (after !== null);
  return strata;
}

/**
 * The bootstrap intervals of every group (packages/bench `groupIntervals`): on this thread when
 * small, else on a worker thread, so a large run's seconds of resampling use the other core and
 * never hold the event loop. Same function, same numbers either way.
 */
export async function runIntervals(
  groups: readonly GroupAggregate[],
  tasks: readonly string[],
  strata: ReadonlyMap<string, ReadonlyMap<string, readonly number[]>>,
  options: IntervalOptions,
): Promise<Map<GroupAggregate, Map<string, Interval>>> {
  const intervals = new Map<GroupAggregate, Map<string, Interval>>();
  const bootstrapOptions = { bootstrap: options.bootstrap, seed: options.seed };
  let values = 0;
  for (const group of groups) {
    for (const list of strata.get(groupKey(group))?.values() ?? []) values += list.length;
  }
  if (values * options.bootstrap <= (options.inlineDraws ?? INLINE_DRAWS)) {
    for (const group of groups) {
      options.signal?.throwIfAborted();
      const own = strata.get(groupKey(group)) ?? new Map();
      intervals.set(group, groupIntervals(tasks, own, bootstrapOptions));
      await setImmediate();
    }
    return intervals;
  }
  const request: BootstrapRequest = {
    tasks: [...tasks],
    ...bootstrapOptions,
    groups: groups.map((group) => ({
      sim: group.sim,
      source: group.source,
      metric: group.metric,
      strata: tasks.map((task) => new Float64Array(strata.get(groupKey(group))?.get(task) ?? [])),
    })),
  };
  const replies = await bootstrapInWorker(request, options.signal);
  groups.forEach((group, index) => {
    const cells = new Map<string, Interval>();
    for (const [task, low, high] of replies[index] ?? []) cells.set(task, { low, high });
    intervals.set(group, cells);
  });
  return intervals;
}

/** One request on a worker thread of its own, ended when it answers (or the signal aborts). */
function bootstrapInWorker(
  request: BootstrapRequest,
  signal: AbortSignal | undefined,
): Promise<[string, number | null, number | null][][]> {
  signal?.throwIfAborted();
  const worker = startWorkerThread(siblingModule(import.meta.url, 'bootstrap-worker'));
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const onAbort = () => settle(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (message: unknown) => {
      const reply = BootstrapReply.safeParse(message);
      settle(() => {
        if (!reply.success) reject(new Error('bootstrap worker: an answer of an unknown shape'));
        else if ('error' in reply.data) reject(new Error(`bootstrap worker: ${reply.data.error}`));
        else resolve(reply.data.intervals);
      });
    });
    worker.once('error', (error) => settle(() => reject(error)));
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`bootstrap worker exited (${code}) without an answer`))),
    );
    // The values move to the worker rather than being copied.
    worker.postMessage(
      request,
      request.groups.flatMap((group) => group.strata.map((values) => values.buffer)),
    );
  });
}
