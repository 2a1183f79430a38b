import type { Worker } from 'node:worker_threads';
import type { ItemScore, Observation, ScorableItem } from '@terrarium/schema';
import { siblingModule, startWorkerThread } from '@terrarium/jobs';
import { ScoringReady, ScoringReply, type ScoringRequest } from './scoring-protocol';

export interface ScoringPool {
  /** The rule scores of one prediction, as `scoreItem` gives them, computed on a worker thread. */
  score(item: ScorableItem, sim: string, predicted: Observation): Promise<ItemScore[]>;
  /**
   * Starts the worker thread now and resolves once it has loaded its modules (about a second
   * here, most of it compiling the scoring code), so that a run's first scores do not wait for it.
   * Rejects if the thread exits first.
   */
  warm(): Promise<void>;
  /** Ends the worker; scores still pending fail. */
  close(): Promise<void>;
}

interface Pending {
  resolve(scores: ItemScore[]): void;
  reject(error: Error): void;
}

const WORKER_URL = siblingModule(import.meta.url, 'scoring-worker');

/**
 * Rule scoring on one worker thread, started at the first score: the bench run's other work
 * (predicting, recording in PGlite, every HTTP request) stays on the server thread, and the
 * scoring uses the machine's other core. Requests are answered in order; a worker that dies fails
 * what it held and the next score starts another.
 */
export function createScoringPool(): ScoringPool {
  let running: { thread: Worker; ready: Promise<void> } | null = null;
  const pending = new Map<number, Pending>();
  let nextId = 1;

  function failAll(error: Error): void {
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
  }

  function started(): { thread: Worker; ready: Promise<void> } {
    if (running !== null) return running;
    const thread = startWorkerThread(WORKER_URL);
    // Only pending scores keep the process alive, not an idle worker.
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      thread.on('message', (message: unknown) => {
        if (ScoringReady.safeParse(message).success) resolve();
      });
      thread.on('exit', (code) => reject(new Error(`the scoring worker exited (${code})`)));
    });
    // Nobody may be waiting for it: a thread that fails to start fails its scores instead.
    ready.catch(() => {});
    thread.on('message', (message: unknown) => {
      const reply = ScoringReply.safeParse(message);
      if (!reply.success) return;
      const entry = pending.get(reply.data.id);
      if (entry === undefined) return;
      pending.delete(reply.data.id);
      if (pending.size === 0) thread.unref();
      if ('error' in reply.data) entry.reject(new Error(reply.data.error));
      else entry.resolve(reply.data.scores);
    });
    thread.on('error', (error) => failAll(error));
    thread.on('exit', (code) => {
      if (running?.thread === thread) running = null;
      failAll(new Error(`the scoring worker exited (${code})`));
    });
    running = { thread, ready };
    return running;
  }

  return {
    score(item, sim, predicted) {
      const worker = started().thread;
      const id = nextId++;
      // Only what scoring reads crosses to the thread: a message is copied whole, and a tau2
      // item's context (its policy and tool schemas, ~20 KB) is most of the item.
      const scorable: ScorableItem = {
        id: item.id,
        history: item.history,
        action: item.action,
        real: item.real,
      };
      const request: ScoringRequest = { id, item: scorable, sim, predicted };
      return new Promise<ItemScore[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.ref();
        // A worker thread's postMessage has no target origin (that is window.postMessage's).
        // oxlint-disable-next-line unicorn/require-post-message-target-origin
        worker.postMessage(request);
      });
    },
    warm() {
      return started().ready;
    },
    async close() {
      const thread = running?.thread ?? null;
      running = null;
      if (thread !== null) await thread.terminate();
      failAll(new Error('the scoring pool is closed'));
    },
  };
}
