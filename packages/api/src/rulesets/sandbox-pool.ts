import type { Worker } from 'node:worker_threads';
import type { CustomRule, CustomRuleInput, CustomRuleResult } from '@terrarium/rubrics';
import { siblingModule, startWorkerThread } from '@terrarium/jobs';
import { SandboxReply, type SandboxRequest } from './sandbox-protocol';

export interface SandboxPool {
  /**
   * Runs a rule on an item. Rules of one `signal` (one reward request, say) take turns with other
   * callers' rules rather than queueing ahead of them, and those still queued when it aborts are
   * dropped (rejected), so a request that ended frees the pool.
   */
  run(rule: CustomRule, input: CustomRuleInput, signal?: AbortSignal): Promise<CustomRuleResult>;
  /**
   * Rejects, saying why, unless the rule compiles, its top level runs and it defines `score`; a
   * `signal` takes turns as `run`'s does.
   */
  check(rule: CustomRule, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export interface SandboxPoolOptions {
  /** Worker threads (default 2: one per core here). */
  size?: number;
  /** Added to a rule's own time limit before the pool kills a worker that did not answer. */
  graceMs?: number;
}

interface Job {
  request: SandboxRequest;
  resolve: (result: CustomRuleResult) => void;
  reject: (error: Error) => void;
}

const REQUEST_ENDED = 'the request ended before the rule ran';

/** Whose jobs: a caller's signal, or one shared lane for callers that give none. */
type Owner = AbortSignal | 'shared';

/**
 * Jobs in turns: the next job comes from the next caller in rotation, so a caller with a hundred
 * slow rules queued delays another caller by at most the jobs already running (walk 47: a
 * trivial reward request waited 7.3 s behind six 2.2 s rules of another).
 */
class FairQueue {
  /** Callers with jobs queued, in rotation; `cursor` is whose turn comes next. */
  private readonly order: Owner[] = [];
  private readonly lanes = new Map<Owner, Job[]>();
  private cursor = 0;

  push(owner: Owner, job: Job): void {
    const lane = this.lanes.get(owner);
    if (lane !== undefined) {
      lane.push(job);
      return;
    }
    // A caller with nothing queued takes the next turn, so a newcomer runs after the jobs
    // already running, whatever another caller has queued; at most one job each, then turns.
    this.lanes.set(owner, [job]);
    this.cursor = Math.min(this.cursor, this.order.length);
    this.order.splice(this.cursor, 0, owner);
  }

  shift(): Job | undefined {
    if (this.order.length === 0) return undefined;
    const at = this.cursor % this.order.length;
    const owner = this.order[at];
    const lane = owner === undefined ? undefined : this.lanes.get(owner);
    const job = lane?.shift();
    if (owner !== undefined && lane !== undefined && lane.length === 0) {
      this.remove(owner);
      this.cursor = at;
    } else {
      this.cursor = at + 1;
    }
    return job;
  }

  /** Takes out every job of `owner`, or of everyone. */
  drain(owner?: Owner): Job[] {
    if (owner !== undefined) {
      const lane = this.lanes.get(owner) ?? [];
      this.remove(owner);
      return lane;
    }
    const all = [...this.lanes.values()].flat();
    this.lanes.clear();
    this.order.length = 0;
    this.cursor = 0;
    return all;
  }

  private remove(owner: Owner): void {
    const at = this.order.indexOf(owner);
    if (at < 0) return;
    this.order.splice(at, 1);
    this.lanes.delete(owner);
    if (at < this.cursor) this.cursor--;
  }
}

interface Slot {
  worker: Worker;
  job: Job | null;
  watchdog: NodeJS.Timeout | null;
}

const WORKER_URL = siblingModule(import.meta.url, 'sandbox-worker');
// The V8 heap of a worker: QuickJS's own memory is limited per rule; this bounds what is left.
const WORKER_HEAP_MB = 256;

/**
 * A custom rule did not give a score. `fault` says whose: the rule's (time, memory, an error of its
 * own; the server is fine) or the sandbox's (a worker lost, the pool closed), which is not the
 * rule author's to fix.
 */
export class SandboxError extends Error {
  override name = 'SandboxError';
  constructor(
    message: string,
    readonly fault: 'rule' | 'sandbox' = 'rule',
  ) {
    super(message);
  }
}

/**
 * Custom rules run in worker threads, each a QuickJS interpreter per call: the server's event loop
 * never runs rule code. A worker that does not answer within the rule's limit plus a grace period
 * is terminated and replaced, so not even a stuck interpreter can hold a slot.
 */
export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  const size = options.size ?? 2;
  const graceMs = options.graceMs ?? 2_000;
  const queue = new FairQueue();
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;
  // Signals already listened to: a request's many rules add one listener, not one each.
  const watched = new WeakSet<AbortSignal>();

  function spawn(): Slot {
    const worker = startWorkerThread(WORKER_URL, { maxOldGenerationSizeMb: WORKER_HEAP_MB });
    const slot: Slot = { worker, job: null, watchdog: null };
    worker.unref();
    worker.on('message', (message: unknown) => {
      const reply = SandboxReply.safeParse(message);
      const job = slot.job;
      if (!reply.success || job === null || reply.data.id !== job.request.id) return;
      finish(slot);
      if (reply.data.ok) job.resolve(reply.data.result);
      else job.reject(new SandboxError(reply.data.message, reply.data.fault));
      pump();
    });
    const lost = (why: string) => {
      const job = slot.job;
      finish(slot);
      replace(slot);
      job?.reject(new SandboxError(why, 'sandbox'));
      pump();
    };
    worker.on('error', (error) => lost(`the sandbox worker failed: ${error.message}`));
    worker.on('exit', (code) => {
      if (!closed && slots.includes(slot)) lost(`the sandbox worker exited (${code})`);
    });
    return slot;
  }

  function finish(slot: Slot): void {
    if (slot.watchdog !== null) clearTimeout(slot.watchdog);
    slot.watchdog = null;
    slot.job = null;
    slot.worker.unref();
  }

  function replace(slot: Slot): void {
    const at = slots.indexOf(slot);
    if (at < 0) return;
    slots.splice(at, 1);
    void slot.worker.terminate();
    if (!closed) slots.push(spawn());
  }

  function pump(): void {
    for (const slot of slots) {
      if (slot.job !== null) continue;
      const job = queue.shift();
      if (job === undefined) return;
      slot.job = job;
      // Busy workers keep the process alive; idle ones do not.
      slot.worker.ref();
      slot.watchdog = setTimeout(() => {
        const stuck = slot.job;
        finish(slot);
        replace(slot);
        const { timeoutMs } = job.request.limits;
        // Past the interpreter's own check (run-in-quickjs.ts): say when it really ended, and
        // what keeps a rule from that check (walk 47: an Array.fill near the memory limit).
        const stoppedAt = (timeoutMs + graceMs).toLocaleString('en-US');
        stuck?.reject(
          new SandboxError(
            `timed out after ${timeoutMs} ms (the sandbox was stopped at ${stoppedAt} ms, the rule still running: one call ran long without a check, such as filling a large array or string near the memory limit of ${job.request.limits.memoryMb} MB)`,
          ),
        );
        pump();
      }, job.request.limits.timeoutMs + graceMs);
      // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a worker thread, not a window
      slot.worker.postMessage(job.request);
    }
  }

  /** Drops the queued jobs of a caller whose signal aborted. */
  function dropQueued(signal: AbortSignal): void {
    for (const job of queue.drain(signal)) {
      job.reject(new SandboxError(REQUEST_ENDED, 'sandbox'));
    }
  }

  function submit(
    rule: CustomRule,
    input: CustomRuleInput | null,
    signal?: AbortSignal,
  ): Promise<CustomRuleResult> {
    if (closed) return Promise.reject(new SandboxError('the sandbox pool is closed', 'sandbox'));
    if (signal?.aborted === true) {
      return Promise.reject(new SandboxError(REQUEST_ENDED, 'sandbox'));
    }
    while (slots.length < size) slots.push(spawn());
    if (signal !== undefined && !watched.has(signal)) {
      watched.add(signal);
      signal.addEventListener('abort', () => dropQueued(signal), { once: true });
    }
    return new Promise<CustomRuleResult>((resolve, reject) => {
      queue.push(signal ?? 'shared', {
        request: {
          id: nextId++,
          source: rule.source,
          language: rule.language,
          input: input === null ? null : { ...input, history: [...input.history] },
          limits: { timeoutMs: rule.timeoutMs, memoryMb: rule.memoryMb },
        },
        resolve,
        reject,
      });
      pump();
    });
  }

  return {
    run: submit,
    async check(rule, signal) {
      await submit(rule, null, signal);
    },
    async close() {
      closed = true;
      for (const job of queue.drain())
        job.reject(new SandboxError('the sandbox pool is closed', 'sandbox'));
      const all = slots.splice(0);
      for (const slot of all) {
        if (slot.watchdog !== null) clearTimeout(slot.watchdog);
        slot.job?.reject(new SandboxError('the sandbox pool is closed', 'sandbox'));
      }
      await Promise.all(all.map((slot) => slot.worker.terminate()));
    },
  };
}
