import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { buildBenchItem, buildBenchManifest } from '@terrarium/db/testing';
import type { BenchItem, BenchRun } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchRunDeps } from './bench-run-deps';
import { createEndpointLimits } from './endpoint-limits';
import { createJobQueue, type JobQueue } from './job-queue';
import { resumeRuns } from './resume-runs';
import { runBenchChunk } from './run-bench-chunk';
import { EchoWorld, scoreWithRules } from './test-support/echo-world';
import { watchRun, type RunProgress } from './watch-run';
import { startWorker } from './worker';

const ITEMS: BenchItem[] = Array.from({ length: 20 }, (_, n) => buildBenchItem(n));
const RULE_METRICS_PER_ITEM = 11;

let store: Store;
let schemaCount = 0;
beforeAll(async () => {
  store = await openMemoryStore();
  await store.createBench(buildBenchManifest('retail', ITEMS), ITEMS);
}, 120_000);
afterAll(async () => {
  await store.close();
});

/** Each test gets its own pg-boss schema on the shared store, so no test takes another's jobs. */
async function queueFor(options: { chunkSize: number }): Promise<JobQueue> {
  schemaCount++;
  return createJobQueue(store, { schema: `pgboss_test_${schemaCount}`, ...options });
}

function depsWith(worlds: Map<string, EchoWorld>, extra: Partial<BenchRunDeps> = {}): BenchRunDeps {
  return {
    async simulatorFor(_run, sim) {
      const world = worlds.get(sim);
      if (!world) throw new Error(`unknown simulator ${sim}`);
      return world;
    },
    score: scoreWithRules,
    costOf: (_sim, usage) => (usage.inputTokens + usage.outputTokens) / 1000,
    ...extra,
  };
}

async function lastProgress(runId: string): Promise<RunProgress[]> {
  const seen: RunProgress[] = [];
  for await (const progress of watchRun(store, runId, { intervalMs: 50 })) seen.push(progress);
  return seen;
}

async function newRun(sims: string[], mode: BenchRun['mode'] = { kind: 'open' }) {
  return store.createBenchRun({ bench: 'retail', sims, judge: null, mode, split: 'test' });
}

describe('bench runs on embedded PGlite', () => {
  it('drains a run: every (item, sim) once, failures counted, usage summed, the run done', async () => {
    const failItemIds = new Set(['item-3']);
    const worlds = new Map([
      ['replay', new EchoWorld('replay', ITEMS, { failItemIds })],
      ['retrieval', new EchoWorld('retrieval', ITEMS, { failItemIds })],
    ]);
    const queue = await queueFor({ chunkSize: 6 });
    const worker = await startWorker({
      queue,
      deps: depsWith(worlds),
      concurrency: 2,
      pollingIntervalSeconds: 0.5,
    });
    try {
      const run = await queue.submitBenchRun({
        bench: 'retail',
        sims: ['replay', 'retrieval'],
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      });
      expect(run.total).toBe(40);
      const progress = await lastProgress(run.id);
      const final = progress.at(-1);
      expect(final).toEqual({
        runId: run.id,
        status: 'done',
        done: 38,
        failed: 2,
        total: 40,
        usage: { inputTokens: 380, outputTokens: 190, costUsd: expect.closeTo(0.57, 9) },
      });
      const counts = progress.map((p) => p.done + p.failed);
      expect(counts).toEqual(counts.toSorted((a, b) => a - b));

      expect([...worlds.values()].map((world) => world.calls)).toEqual([20, 20]);
      const predictions = await store.listPredictions(run.id, { offset: 0, limit: 100 });
      expect(predictions.total).toBe(40);
      expect(new Set(predictions.rows.map((p) => `${p.sim}/${p.itemId}`)).size).toBe(40);
      const failed = predictions.rows.filter((p) => p.error !== null);
      expect(failed.map((p) => [p.sim, p.itemId, p.error])).toEqual([
        ['replay', 'item-3', 'connect ECONNREFUSED 127.0.0.1:9 (item item-3)'],
        ['retrieval', 'item-3', 'connect ECONNREFUSED 127.0.0.1:9 (item item-3)'],
      ]);
      const item5 = predictions.rows.find((p) => p.sim === 'replay' && p.itemId === 'item-5');
      expect(item5?.observation).toEqual(ITEMS[5]?.real);
      expect(item5?.provenance).toEqual({ backend: 'echo', cache: 'hit' });

      const scores = await store.listScores(run.id, { source: 'rule', offset: 0, limit: 1000 });
      expect(scores.total).toBe(38 * RULE_METRICS_PER_ITEM);
      const exact = await store.listScores(run.id, {
        metric: 'exact-match',
        offset: 0,
        limit: 100,
      });
      expect(exact.rows.every((score) => score.value === 1)).toBe(true);
      expect(await queue.enqueueBenchRun(run.id)).toBe(0);
    } finally {
      await worker.stop();
      await queue.stop();
    }
  }, 60_000);

  it("counts a timed-out call's cost as not known, and a refused one's as nothing", async () => {
    const silent = 'openai:http://127.0.0.1:9/v1#silent';
    const down = 'openai:http://127.0.0.1:9/v1#down';
    const worlds = new Map([
      [
        silent,
        new EchoWorld(silent, ITEMS, {
          failItemIds: new Set(['item-3']),
          failAs: 'timeout',
        }),
      ],
      [down, new EchoWorld(down, ITEMS, { failItemIds: new Set(['item-3']) })],
    ]);
    const queue = await queueFor({ chunkSize: 20 });
    const worker = await startWorker({
      queue,
      deps: depsWith(worlds),
      concurrency: 1,
      pollingIntervalSeconds: 0.5,
    });
    try {
      const run = await newRun([silent, down]);
      await queue.enqueueBenchRun(run.id);
      const final = (await lastProgress(run.id)).at(-1);
      // A server that took the request and went silent may have generated all along (walk 48:
      // every failed unit's results line said 0).
      expect(final?.usage).toEqual({
        inputTokens: 380,
        outputTokens: 190,
        costUsd: null,
        unpriced: { units: 1, knownUsd: expect.closeTo(0.57, 9) },
      });
      const predictions = await store.listPredictions(run.id, { offset: 0, limit: 100 });
      expect(
        predictions.rows
          .filter((p) => p.error !== null)
          .map((p) => [p.sim, p.usage.costUsd])
          .toSorted(),
      ).toEqual([
        [down, 0],
        [silent, null],
      ]);
    } finally {
      await worker.stop();
      await queue.stop();
    }
  }, 60_000);

  it('starts a run submitted in this process at once, not at the next poll', async () => {
    const worlds = new Map([['replay', new EchoWorld('replay', ITEMS)]]);
    const queue = await queueFor({ chunkSize: 8 });
    // An hour between polls: after the worker has found the queue empty, only being woken can
    // start the second run before the test's timeout.
    const worker = await startWorker({
      queue,
      deps: depsWith(worlds),
      concurrency: 1,
      pollingIntervalSeconds: 3600,
    });
    try {
      const submit = () =>
        queue.submitBenchRun({
          bench: 'retail',
          sims: ['replay'],
          judge: null,
          mode: { kind: 'open' },
          split: 'test',
        });
      for (const run of [await submit(), await submit()]) {
        const final = (await lastProgress(run.id)).at(-1);
        expect([final?.status, final?.done]).toEqual(['done', 20]);
      }
      expect(worlds.get('replay')?.calls).toBe(40);
    } finally {
      await worker.stop();
      await queue.stop();
    }
  }, 60_000);

  it('runs a finished chunk again without predicting or inserting anything', async () => {
    const world = new EchoWorld('replay', ITEMS);
    const run = await newRun(['replay']);
    const runtime = {
      store,
      deps: depsWith(new Map([['replay', world]])),
      limits: createEndpointLimits(),
    };
    const chunk = { runId: run.id, sim: 'replay', itemIds: ['item-0', 'item-1', 'item-2'] };
    expect(await runBenchChunk(runtime, chunk)).toEqual({
      recorded: 3,
      failed: 0,
      abandoned: 0,
      stoppedBy: null,
    });
    expect(await runBenchChunk(runtime, chunk)).toEqual({
      recorded: 0,
      failed: 0,
      abandoned: 0,
      stoppedBy: null,
    });
    expect(world.calls).toBe(3);
    // Two copies of one chunk at once (a duplicate job): each unit is recorded by one of them.
    const twin = {
      runId: run.id,
      sim: 'replay',
      itemIds: ['item-3', 'item-4', 'item-5', 'item-6'],
    };
    const outcomes = await Promise.all([
      runBenchChunk(runtime, twin),
      runBenchChunk(runtime, twin),
    ]);
    expect(outcomes.map((o) => o.recorded).reduce((a, b) => a + b, 0)).toBe(4);
    expect(await store.getBenchRun(run.id)).toMatchObject({
      status: 'running',
      done: 7,
      failed: 0,
    });
    expect((await store.listScores(run.id, { offset: 0, limit: 1000 })).total).toBe(
      7 * RULE_METRICS_PER_ITEM,
    );
  });

  it("reads the run's status once per chunk, not once per unit, while the run goes on", async () => {
    const run = await newRun(['replay']);
    let statusReads = 0;
    const counting: Store = {
      ...store,
      getBenchRun(runId) {
        statusReads++;
        return store.getBenchRun(runId);
      },
    };
    const outcome = await runBenchChunk(
      {
        store: counting,
        deps: depsWith(new Map([['replay', new EchoWorld('replay', ITEMS)]])),
        // Every unit but the first 2 waits for a slot; the poll's period is longer than the chunk.
        limits: createEndpointLimits({ replay: 2 }),
        statusPollMs: 60_000,
      },
      { runId: run.id, sim: 'replay', itemIds: ITEMS.map((item) => item.id) },
    );
    expect(outcome).toEqual({ recorded: 20, failed: 0, abandoned: 0, stoppedBy: null });
    expect(statusReads).toBe(1);
  });

  it('stops a canceled run between items and aborts its in-flight prediction', async () => {
    const world = new EchoWorld('onnx:/models/tiny', ITEMS, { holdAfter: 5 });
    const queue = await queueFor({ chunkSize: 4 });
    const worker = await startWorker({
      queue,
      deps: depsWith(new Map([['onnx:/models/tiny', world]])),
      concurrency: 2,
      pollingIntervalSeconds: 0.5,
      statusPollMs: 50,
    });
    try {
      const run = await queue.submitBenchRun({
        bench: 'retail',
        sims: ['onnx:/models/tiny'],
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      });
      for await (const progress of watchRun(store, run.id, { intervalMs: 50 })) {
        if (progress.done === 5) break;
      }
      expect(await queue.cancelBenchRun(run.id)).toBe(true);
      const progress = await lastProgress(run.id);
      expect(progress.at(-1)).toMatchObject({ status: 'canceled', done: 5, failed: 0, total: 20 });
      await worker.stop();
      expect(world.aborted).toBe(1);
      // The onnx limit is 1 per worker even with two chunks running at once.
      expect(world.maxInFlight).toBe(1);
      expect(await store.getBenchRun(run.id)).toMatchObject({ status: 'canceled', done: 5 });
      expect((await store.listPredictions(run.id, { offset: 0, limit: 100 })).total).toBe(5);
      expect(await store.pendingWork(run.id, 'onnx:/models/tiny', 100)).toHaveLength(15);
      expect(await queue.enqueueBenchRun(run.id)).toBe(0);
    } finally {
      await worker.stop();
      await queue.stop();
    }
  }, 60_000);

  it('resumes after a crash: only the missing units are enqueued and predicted', async () => {
    const world = new EchoWorld('retrieval', ITEMS);
    const deps = depsWith(new Map([['retrieval', world]]));
    const queue = await queueFor({ chunkSize: 4 });
    const run = await newRun(['retrieval']);
    try {
      // A previous process recorded 7 units, then died with all its queued jobs lost.
      await runBenchChunk(
        { store, deps, limits: createEndpointLimits() },
        { runId: run.id, sim: 'retrieval', itemIds: ITEMS.slice(0, 7).map((item) => item.id) },
      );
      expect(await resumeRuns(queue)).toContainEqual({ runId: run.id, chunks: 4 });
      // Live jobs already cover the rest: resuming again adds nothing.
      expect(await queue.enqueueBenchRun(run.id)).toBe(0);
      const worker = await startWorker({
        queue,
        deps,
        concurrency: 2,
        pollingIntervalSeconds: 0.5,
      });
      try {
        expect((await lastProgress(run.id)).at(-1)).toMatchObject({ status: 'done', done: 20 });
      } finally {
        await worker.stop();
      }
      expect(world.calls).toBe(20);
      expect((await store.listPredictions(run.id, { offset: 0, limit: 100 })).total).toBe(20);
    } finally {
      await queue.stop();
    }
  }, 60_000);

  it('gives a closed-loop run the history the injected function builds', async () => {
    const world = new EchoWorld('replay', ITEMS);
    const run = await newRun(['replay'], { kind: 'closed', steps: 2 });
    const deps = depsWith(new Map([['replay', world]]), {
      async historyFor(_run, _sim, item) {
        return [...item.history, ...item.history];
      },
    });
    await runBenchChunk(
      { store, deps, limits: createEndpointLimits() },
      { runId: run.id, sim: 'replay', itemIds: ['item-0', 'item-1'] },
    );
    expect(world.historyLengths).toEqual([2, 2]);
    const openWorld = new EchoWorld('replay', ITEMS);
    const openRun = await newRun(['replay']);
    await runBenchChunk(
      {
        store,
        deps: { ...deps, simulatorFor: async () => openWorld },
        limits: createEndpointLimits(),
      },
      { runId: openRun.id, sim: 'replay', itemIds: ['item-0'] },
    );
    expect(openWorld.historyLengths).toEqual([1]);
  });
});
