import type { Store } from '@terrarium/db';

// A run's status stays `done` while its judge is asked again, so nothing in the store stops a
// second retry (another tab, a second CLI): it joins the asking under way instead of paying for
// the same verdicts twice. Per process: the server is where retries are asked.
const asking = new WeakMap<Store, Map<string, Promise<void>>>();

/** `ask()` for `runId`, unless this process is already asking its judge: then that asking. */
export function joinAsking(store: Store, runId: string, ask: () => Promise<void>): Promise<void> {
  let runs = asking.get(store);
  if (runs === undefined) {
    runs = new Map();
    asking.set(store, runs);
  }
  const going = runs.get(runId);
  if (going !== undefined) return going;
  const started = ask().finally(() => runs.delete(runId));
  runs.set(runId, started);
  return started;
}

/**
 * `ask()` for `runId` once no asking of its judge is under way in this process (waiting for one
 * that is), and counted as one meanwhile: two judgings of the same pairs never overlap, and the
 * later one finds the verdicts the earlier gave (kept, not paid for twice).
 */
export async function askAfterOthers<T>(
  store: Store,
  runId: string,
  ask: () => Promise<T>,
): Promise<T> {
  let runs = asking.get(store);
  if (runs === undefined) {
    runs = new Map();
    asking.set(store, runs);
  }
  for (let going = runs.get(runId); going !== undefined; going = runs.get(runId)) {
    await going.catch(() => undefined);
  }
  const started = ask();
  const settled = started.then(
    () => undefined,
    () => undefined,
  );
  runs.set(runId, settled);
  void settled.then(() => {
    if (runs.get(runId) === settled) runs.delete(runId);
  });
  return started;
}

/**
 * Whether this process is asking `runId`'s judge again: a delete then waits for it to end, and the
 * run page shows the asking rather than a button that would start it.
 */
export function askingJudgeAgain(store: Store, runId: string): boolean {
  return asking.get(store)?.has(runId) ?? false;
}
