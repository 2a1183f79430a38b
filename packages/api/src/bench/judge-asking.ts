import { setMaxListeners } from 'node:events';
import type { Store } from '@terrarium/db';

/** A run whose judge this process is asking: until when, and how to stop it. */
interface Asking {
  /** Its outcome: a joiner is told of a failure as the one who started it is. */
  outcome: Promise<void>;
  /** Its end, whatever the outcome: what waits for it without asking. */
  settled: Promise<void>;
  controller: AbortController;
}

// A run's status stays `done` while its judge is asked again, so nothing in the store stops a
// second retry (another tab, a second CLI): it joins the asking under way instead of paying for
// the same verdicts twice. Per process: the server is where retries are asked.
const asking = new WeakMap<Store, Map<string, Asking>>();

function runsOf(store: Store): Map<string, Asking> {
  let runs = asking.get(store);
  if (runs === undefined) {
    runs = new Map();
    asking.set(store, runs);
  }
  return runs;
}

/** Counts `ask` as the asking of `runId`'s judge until it settles; `signal` stops it. */
function register<T>(
  runs: Map<string, Asking>,
  runId: string,
  ask: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  // Each request in flight listens for the stop: more than Node's default 10 is no leak here.
  setMaxListeners(0, controller.signal);
  const started = ask(controller.signal);
  const outcome = started.then(() => undefined);
  const settled = outcome.catch(() => undefined);
  const entry = { outcome, settled, controller };
  runs.set(runId, entry);
  void settled.then(() => {
    if (runs.get(runId) === entry) runs.delete(runId);
  });
  return started;
}

/** `ask()` for `runId`, unless this process is already asking its judge: then that asking. */
export function joinAsking(
  store: Store,
  runId: string,
  ask: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const runs = runsOf(store);
  const going = runs.get(runId);
  if (going !== undefined) return going.outcome;
  return register(runs, runId, ask);
}

/**
 * `ask()` for `runId` once no asking of its judge is under way in this process (waiting for one
 * that is), and counted as one meanwhile: two judgings of the same pairs never overlap, and the
 * later one finds the verdicts the earlier gave (kept, not paid for twice).
 */
export async function askAfterOthers<T>(
  store: Store,
  runId: string,
  ask: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const runs = runsOf(store);
  for (let going = runs.get(runId); going !== undefined; going = runs.get(runId)) {
    await going.settled;
  }
  return register(runs, runId, ask);
}

/**
 * Whether this process is asking `runId`'s judge again: a delete then waits for it to end, and the
 * run page shows the asking rather than a button that would start it.
 */
export function askingJudgeAgain(store: Store, runId: string): boolean {
  return asking.get(store)?.has(runId) ?? false;
}

/**
 * Stops the asking of `runId`'s judge under way in this process, if any, once the requests in
 * flight are dropped: the verdicts given so far stay, the rest stay missing. False: none was.
 */
export async function stopAsking(store: Store, runId: string): Promise<boolean> {
  const going = asking.get(store)?.get(runId);
  if (going === undefined) return false;
  going.controller.abort(new Error('stopped by the user'));
  await going.settled;
  return true;
}
