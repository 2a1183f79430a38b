import type { Store } from '@terrarium/db';
import type { BenchRun } from '@terrarium/schema';
import PgBoss from 'pg-boss';
import { BENCH_RUN_QUEUE, ChunkJob } from './chunk-job';
import type { NewBenchRun } from '@terrarium/db';

export interface JobQueueOptions {
  /** Postgres schema of pg-boss's tables (default `pgboss`); tests give each store its own. */
  schema?: string;
  /** (item, sim) units per job (default 16). Smaller chunks spread a run over more workers. */
  chunkSize?: number;
  /**
   * A job still active after this long is failed and retried by another worker (default 1,800 s).
   * This is how a killed worker's chunk comes back (pg-boss 10 has no heartbeat), so it must
   * exceed the slowest chunk: chunk size / endpoint limit × the slowest prediction.
   */
  expireInSeconds?: number;
  /** How often expired jobs are looked for (default 60 s; tests use 1). */
  maintenanceIntervalSeconds?: number;
  /** Retries of a chunk (expired, or released by a stopping worker) before it is given up (default 50). */
  retryLimit?: number;
  /** Seconds before a failed chunk is retried (default 1). */
  retryDelaySeconds?: number;
  /** Called with pg-boss's background errors (default: printed to stderr). */
  onError?: (error: Error) => void;
}

export interface JobQueue {
  readonly store: Store;
  readonly boss: PgBoss;
  readonly options: Required<Omit<JobQueueOptions, 'onError'>>;
  /** Creates a queued run and enqueues its chunks. */
  submitBenchRun(run: NewBenchRun): Promise<BenchRun>;
  /**
   * Enqueues chunks for the run's pending units that no live job (created, retrying or active)
   * already covers, so calling it again, or after a restart, adds only what is missing. Marks a run
   * with nothing left `done`. Returns the number of chunks enqueued.
   */
  enqueueBenchRun(runId: string): Promise<number>;
  /** Marks the run canceled; workers stop its chunks between items and abort in-flight calls. */
  cancelBenchRun(runId: string): Promise<boolean>;
  /**
   * Takes jobs of `name` in this process, one at a time (pg-boss `work`, batch size 1). Such a
   * worker is woken when this process enqueues to `name` (`wake`), and asks again right after a
   * job, instead of waiting out its polling interval either time. Returns pg-boss's worker id.
   */
  work(
    name: string,
    pollingIntervalSeconds: number,
    handler: (jobs: { id: string; data: unknown }[]) => Promise<void>,
  ): Promise<string>;
  /** Wakes this process's workers of `name`, after enqueuing to it. Workers elsewhere poll. */
  wake(name: string): void;
  /** Stops pg-boss (not the store, which the caller owns). */
  stop(): Promise<void>;
}

const DEFAULTS = {
  schema: 'pgboss',
  // Units per job. A chunk records its units in batches (one transaction each), and pg-boss costs
  // a few statements per job: at 16 a replay-only run spent most of its time in the queue.
  chunkSize: 128,
  expireInSeconds: 1_800,
  maintenanceIntervalSeconds: 60,
  retryLimit: 50,
  retryDelaySeconds: 1,
};

/**
 * Starts pg-boss on the store's own database (PGlite's one connection, or the PostgreSQL pool,
 * through `store.jobDb()`), installs its schema on first use, and creates the `bench-run` queue.
 */
export async function createJobQueue(
  store: Store,
  options: JobQueueOptions = {},
): Promise<JobQueue> {
  const settings = {
    schema: options.schema ?? DEFAULTS.schema,
    chunkSize: Math.max(1, Math.trunc(options.chunkSize ?? DEFAULTS.chunkSize)),
    expireInSeconds: options.expireInSeconds ?? DEFAULTS.expireInSeconds,
    maintenanceIntervalSeconds:
      options.maintenanceIntervalSeconds ?? DEFAULTS.maintenanceIntervalSeconds,
    retryLimit: options.retryLimit ?? DEFAULTS.retryLimit,
    retryDelaySeconds: options.retryDelaySeconds ?? DEFAULTS.retryDelaySeconds,
  };
  const jobDb = store.jobDb();
  const boss = new PgBoss({
    db: { executeSql: (text: string, values: unknown[]) => jobDb.executeSql(text, values) },
    schema: settings.schema,
    maintenanceIntervalSeconds: settings.maintenanceIntervalSeconds,
    // Queue-state counts are not used; skip their polling.
    monitorStateIntervalSeconds: 3_600,
    // No cron schedules: the clock checks would only cost queries.
    schedule: false,
  });
  const onError =
    options.onError ?? ((error: Error) => process.stderr.write(`job queue: ${error.message}\n`));
  boss.on('error', onError);
  await boss.start();
  const queueOptions = {
    name: BENCH_RUN_QUEUE,
    policy: 'standard' as const,
    retryLimit: settings.retryLimit,
    retryDelay: settings.retryDelaySeconds,
    expireInSeconds: settings.expireInSeconds,
  };
  if (await boss.getQueue(BENCH_RUN_QUEUE)) await boss.updateQueue(BENCH_RUN_QUEUE, queueOptions);
  else await boss.createQueue(BENCH_RUN_QUEUE, queueOptions);

  /** Item ids per sim that live jobs of this run already carry. */
  async function coveredUnits(runId: string): Promise<Map<string, Set<string>>> {
    // pg-boss 10's job table (pinned version): states before 'completed' are still to be done.
    const { rows } = await jobDb.executeSql(
      `SELECT data FROM ${settings.schema}.job
       WHERE name = $1 AND state < 'completed' AND data->>'runId' = $2`,
      [BENCH_RUN_QUEUE, runId],
    );
    const covered = new Map<string, Set<string>>();
    for (const row of rows) {
      const data = typeof row === 'object' && row !== null && 'data' in row ? row.data : null;
      const parsed = ChunkJob.safeParse(data);
      if (!parsed.success) continue;
      const ids = covered.get(parsed.data.sim) ?? new Set<string>();
      for (const id of parsed.data.itemIds) ids.add(id);
      covered.set(parsed.data.sim, ids);
    }
    return covered;
  }

  /** This process's pg-boss worker ids, by queue name. */
  const localWorkers = new Map<string, Set<string>>();

  function wake(name: string): void {
    for (const id of localWorkers.get(name) ?? []) boss.notifyWorker(id);
  }

  async function work(
    name: string,
    pollingIntervalSeconds: number,
    handler: (jobs: { id: string; data: unknown }[]) => Promise<void>,
  ): Promise<string> {
    let id = '';
    id = await boss.work(name, { batchSize: 1, pollingIntervalSeconds }, async (jobs) => {
      try {
        await handler(jobs);
      } finally {
        // pg-boss waits out the polling interval even after a job; a worker that just finished
        // one asks again at once, so cheap jobs (replay chunks) are not paced at one a second.
        boss.notifyWorker(id);
      }
    });
    const ids = localWorkers.get(name) ?? new Set<string>();
    ids.add(id);
    localWorkers.set(name, ids);
    return id;
  }

  async function enqueueBenchRun(runId: string): Promise<number> {
    const run = await store.getBenchRun(runId);
    if (!run) throw new Error(`no bench run ${runId}`);
    if (run.status !== 'queued' && run.status !== 'running') return 0;
    const covered = await coveredUnits(run.id);
    const jobs: ChunkJob[] = [];
    let pendingUnits = 0;
    for (const sim of run.sims) {
      const pending = await store.pendingWork(run.id, sim, run.total);
      pendingUnits += pending.length;
      const inJobs = covered.get(sim);
      const uncovered = inJobs ? pending.filter((id) => !inJobs.has(id)) : pending;
      for (let start = 0; start < uncovered.length; start += settings.chunkSize) {
        jobs.push({
          runId: run.id,
          sim,
          itemIds: uncovered.slice(start, start + settings.chunkSize),
        });
      }
    }
    if (pendingUnits === 0) {
      await store.completeBenchRunIfDrained(run.id);
      return 0;
    }
    for (let start = 0; start < jobs.length; start += 500) {
      await boss.insert(
        jobs.slice(start, start + 500).map((data) => ({
          name: BENCH_RUN_QUEUE,
          data,
          retryLimit: settings.retryLimit,
          retryDelay: settings.retryDelaySeconds,
          expireInSeconds: settings.expireInSeconds,
        })),
      );
    }
    wake(BENCH_RUN_QUEUE);
    return jobs.length;
  }

  return {
    store,
    boss,
    options: settings,
    async submitBenchRun(input) {
      const run = await store.createBenchRun(input);
      await enqueueBenchRun(run.id);
      return (await store.getBenchRun(run.id)) ?? run;
    },
    enqueueBenchRun,
    work,
    wake,
    cancelBenchRun: (runId) =>
      store.setBenchRunStatus(runId, 'canceled', null, ['queued', 'running']),
    async stop() {
      await boss.stop({ graceful: true, wait: true, close: false, timeout: 10_000 });
    },
  };
}
