/**
 * Benchmark of issue 9 §3 (bench pages and bench-run writes), in one run:
 *
 *   cd benchmarks && node --import tsx bench-pages.ts [--items 100000] [--memory]
 *
 * (1) Pages. A synthetic finished run of `--items` bench items × 3 simulators × 12 rule metrics
 *     (100,000 × 3 × 12 = 3.6 M scores) in an embedded PGlite store (a temp folder; `--memory` for
 *     in-memory), written with the batched writer (`recordPredictions`, 256 units a transaction,
 *     which keeps the leaderboard's totals and the charts' slices current). Then, through the same
 *     service functions the tRPC procedures call: the leaderboard (cached once the run is finished),
 *     a cell's first page and a deep page, a task cell's page, a chart's data (the score's slices);
 *     beside a trivial query on the same store (a run looked up by id). Goals: leaderboard
 *     < 150 ms, a cell page < 100 ms, a chart's data < 200 ms. The one-time cost at the run's end
 *     (the seeded bootstrap of every cell, 1,000 resamples) is printed with the event loop's
 *     longest stall meanwhile, and the running leaderboard's read of the totals.
 * (2) Writes. A replay-only run over a real bench (every transition of the three tau2-bench
 *     result files of ../shared/data, `sampling: all`): units/s of predicting and scoring alone
 *     on one thread (no store), of recording those units alone (the store's ceiling), of the
 *     same with one transaction per unit (the writer before),
 *     with 256-unit batches, and of the real run through the server's job queue and workers, whose
 *     rule scoring runs on a worker thread. Goal ≥ 5,000 units/s, i.e. bound by scoring.
 */
/// <reference types="node" />
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import {
  buildBenchFromDatasets,
  cellItems,
  collectDataFiles,
  createBenchRunDeps,
  getRun,
  importFiles,
  leaderboard,
  readDataFile,
  chartSlices,
  runLeaderboard,
  startBenchWorkers,
  startRun,
  watchRun,
} from '@terrarium/api';
import { openStore, type RecordedUnit, type Store } from '@terrarium/db';
import type { BenchItem, BenchRun, ItemScore, RunPrediction } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { seededRandom } from './seeded-random';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}
const ITEMS = Number(flag('items') ?? 100_000);
const MEMORY = process.argv.includes('--memory');
const SIMS = ['replay', 'retrieval', 'onnx:/models/synthetic'];
const METRICS = Array.from({ length: 12 }, (_, n) => `metric-${String(n + 1).padStart(2, '0')}`);
const TASKS = Array.from({ length: 10 }, (_, n) => `domain-${n % 3}/task-${n}`);
const BATCH = 256;
const REPEATS = 7;
const SKIP_WRITES = process.argv.includes('--skip-writes');
const SKIP_PAGES = process.argv.includes('--skip-pages');

function syntheticItem(n: number): BenchItem {
  const turns = n % 6;
  return {
    id: `item-${String(n).padStart(7, '0')}`,
    task: TASKS[n % TASKS.length] ?? 'task',
    domain: 'tool',
    split: 'test',
    origin: { dataset: 'synthetic', trajectory: `t-${Math.floor(n / 6)}`, stepIndex: turns },
    turnIndex: turns,
    totalTurns: 6,
    context: { task: `Task ${n % 500}`, systemPrompt: 'You are an agent.', tools: [] },
    history: Array.from({ length: turns }, (_, t) => ({
      action: {
        type: 'tool_call',
        name: 'lookup',
        arguments: { id: `${n}-${t}` },
        callId: `c${t}`,
      },
      observation: { kind: 'json', content: `{"id":"${n}-${t}","ok":true}`, callId: `c${t}` },
    })),
    action: { type: 'tool_call', name: 'lookup', arguments: { id: `${n}` }, callId: 'c' },
    real: { kind: 'json', content: `{"id":"${n}","ok":true}`, callId: 'c' },
  };
}

function syntheticUnit(runId: string, sim: string, item: BenchItem, random: () => number) {
  const prediction: RunPrediction = {
    runId,
    itemId: item.id,
    sim,
    observation: item.real,
    reasoning: null,
    provenance: { backend: sim, cache: 'miss' },
    latencyMs: Math.round(random() * 5000) / 10,
    usage: { inputTokens: Math.floor(random() * 900), outputTokens: Math.floor(random() * 90) },
    error: null,
  };
  const scores: ItemScore[] = METRICS.map((metric, m) => ({
    itemId: item.id,
    sim,
    source: 'rule',
    metric,
    // Every 4th metric is "does not apply" on some items, as the JSON/tool metrics are.
    value: m % 4 === 3 && random() < 0.2 ? null : Math.round(random() * 1000) / 1000,
    detail: null,
  }));
  const unit: RecordedUnit = { prediction, scores };
  return unit;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** Median of REPEATS runs after one warm-up. */
async function median(work: () => Promise<unknown>): Promise<number> {
  await work();
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) times.push((await timed(work)).ms);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;

async function finished(store: Store, runId: string): Promise<BenchRun> {
  for await (const _ of watchRun({ store }, runId, undefined)) {
    // Progress is not needed, only the end.
  }
  return getRun({ store }, runId);
}

async function pages(store: Store): Promise<void> {
  const items = Array.from({ length: ITEMS }, (_, n) => syntheticItem(n));
  const byTask: Record<string, number> = {};
  for (const item of items) byTask[item.task] = (byTask[item.task] ?? 0) + 1;
  const built = await timed(() =>
    store.createBench(
      {
        name: 'synthetic',
        createdAt: '2026-12-01T00:00:00.000Z',
        sampling: { kind: 'all' },
        seed: 0,
        sources: ['synthetic'],
        devFraction: 0,
        itemCount: items.length,
        duplicatesDropped: 0,
        byTask,
        contentHash: 'synthetic',
      },
      items,
    ),
  );
  const run = await store.createBenchRun({
    bench: 'synthetic',
    sims: SIMS,
    judge: null,
    mode: { kind: 'open' },
    split: 'test',
  });
  const random = seededRandom(9);
  let units = 0;
  const written = await timed(async () => {
    for (const sim of SIMS) {
      for (let start = 0; start < items.length; start += BATCH) {
        const batch = items
          .slice(start, start + BATCH)
          .map((item) => syntheticUnit(run.id, sim, item, random));
        units += (await store.recordPredictions(batch)).recorded;
      }
    }
  });
  const ctx = { store };
  const done = await getRun(ctx, run.id);
  console.log(
    `\n(1) pages: ${ITEMS.toLocaleString('en-US')} items × ${SIMS.length} simulators × ${METRICS.length} metrics ` +
      `(${(units * METRICS.length).toLocaleString('en-US')} scores), PGlite ${MEMORY ? 'in memory' : 'on disk'}, run ${done.status}`,
  );
  console.log(
    `  bench stored in ${ms(built.ms)}; ${units.toLocaleString('en-US')} units written in ${ms(written.ms)} ` +
      `(${rate((units / written.ms) * 1000)} units, ${rate(((units * METRICS.length) / written.ms) * 1000)} scores; batched writer, synthetic scores)`,
  );

  const totals = await timed(() => store.runScoreTotals(run.id));
  console.log(
    `  the leaderboard's means, from the writer's totals (exact, any run state): ${ms(totals.ms)} per read`,
  );
  // The end of the run, once: the bootstrap of every cell (values read a page at a time, resampled
  // on a worker thread when large), while this thread keeps answering: its longest stall is what
  // a request waits at worst meanwhile.
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const finishedRun = await getRun(ctx, run.id);
  const first = await timed(() => runLeaderboard(store, finishedRun, 1000));
  stalls.disable();
  console.log(
    `  at the run's end, once: bootstrap (1,000 resamples) of ${first.value.length} cells, cached: ${ms(first.ms)}; ` +
      `the event loop's longest stall meanwhile ${ms(stalls.max / 1e6)} (p99 ${ms(stalls.percentile(99) / 1e6)})`,
  );

  const content = { source: 'rule' as const, metric: 'metric-01' };
  const trivial = await median(() => store.getBenchRun(run.id));
  const board = await median(() => leaderboard(ctx, run.id, 1000));
  const cellFirst = await median(() =>
    cellItems(ctx, {
      runId: run.id,
      sim: 'retrieval',
      task: 'overall',
      score: content,
      offset: 0,
      limit: 50,
    }),
  );
  const cellDeep = await median(() =>
    cellItems(ctx, {
      runId: run.id,
      sim: 'retrieval',
      task: 'overall',
      score: content,
      offset: 50_000,
      limit: 50,
    }),
  );
  const cellTask = await median(() =>
    cellItems(ctx, {
      runId: run.id,
      sim: 'replay',
      task: TASKS[3] ?? '',
      score: content,
      offset: 0,
      limit: 50,
    }),
  );
  const slices = await median(() => chartSlices(ctx, run.id, content));
  const sliceCount = (await chartSlices(ctx, run.id, content)).length;
  const rows: [string, number, number][] = [
    ['trivial query (a run by id)', trivial, Number.NaN],
    ['leaderboard (finished run, cached)', board, 150],
    ['cell page: overall, first 50, worst first', cellFirst, 100],
    ['cell page: overall, offset 50,000', cellDeep, 100],
    ['cell page: one task, first 50', cellTask, 100],
    [`a chart's data (${sliceCount} slices, every chart of a score)`, slices, 200],
  ];
  console.log(`  median of ${REPEATS}:`);
  for (const [name, value, goal] of rows) {
    const ratio = (value / trivial).toFixed(1);
    const verdict = Number.isNaN(goal)
      ? ''
      : value < goal
        ? ` (goal < ${goal} ms: met)`
        : ` (goal < ${goal} ms: NOT met)`;
    console.log(
      `    ${name.padEnd(44)} ${ms(value).padStart(9)}  ${ratio.padStart(7)}× trivial${verdict}`,
    );
  }
}

async function writes(store: Store): Promise<void> {
  // Started first, as a server starts its workers with itself: their scoring thread loads
  // meanwhile, not when the queued run below begins.
  const workers = await startBenchWorkers(store, { concurrency: 2 });
  const tau2 = sharedDataPath('tau2-bench/results');
  const files = [
    `${tau2}/gpt-4.1_retail_defautl_gpt-4.1_1trials.json`,
    `${tau2}/gpt-4.1_airline_default_gpt-4.1_1trials.json`,
    `${tau2}/gpt-4.1_telecom_default_gpt-4.1_1trials.json`,
  ];
  await importFiles(store, (await collectDataFiles(files)).map(readDataFile), { dataset: 'tau2' });
  const manifest = await buildBenchFromDatasets(
    { store },
    { name: 'tau2-all', datasets: ['tau2'], sampling: { kind: 'all' }, seed: 0, devFraction: 0 },
  );
  const items = await readItems(store);
  // Scored inline, one unit after another: the one-core bound the variants below are measured against.
  const deps = createBenchRunDeps(store, { scoring: 'inline' });
  const newRun = () =>
    store.createBenchRun({
      bench: 'tau2-all',
      sims: ['replay'],
      judge: null,
      mode: { kind: 'open' },
      split: 'test',
    });

  async function unitOf(run: BenchRun, item: BenchItem): Promise<RecordedUnit> {
    const simulator = await deps.simulatorFor(run, 'replay', item);
    const predicted = await simulator.predict(
      {
        domain: item.domain,
        task: item.context.task,
        systemPrompt: item.context.systemPrompt,
        tools: item.context.tools,
      },
      item.history,
      item.action,
    );
    const prediction: RunPrediction = {
      runId: run.id,
      itemId: item.id,
      sim: 'replay',
      observation: predicted.observation,
      reasoning: null,
      provenance: { backend: 'replay' },
      latencyMs: predicted.latencyMs,
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      error: null,
    };
    const { scores } = await deps.score(item, 'replay', predicted.observation, run);
    return { prediction, scores };
  }

  const warm = await newRun();
  for (const item of items) await unitOf(warm, item);
  const scoringRun = await newRun();
  const computed: RecordedUnit[] = [];
  const scoring = await timed(async () => {
    for (const item of items) computed.push(await unitOf(scoringRun, item));
  });
  // The store's own ceiling: the same units recorded with nothing predicted or scored meanwhile.
  // Each unit is a prediction row and a row per rule metric (12 here) with their index entries.
  const recordingRun = await newRun();
  const recording = await timed(async () => {
    for (let at = 0; at < computed.length; at += BATCH) {
      await store.recordPredictions(
        computed.slice(at, at + BATCH).map(({ prediction, scores }) => ({
          prediction: { ...prediction, runId: recordingRun.id },
          scores,
        })),
      );
    }
  });
  const perUnitRun = await newRun();
  const perUnit = await timed(async () => {
    for (const item of items) {
      const unit = await unitOf(perUnitRun, item);
      await store.recordPrediction(unit.prediction, unit.scores);
    }
  });
  const batchedRun = await newRun();
  const batched = await timed(async () => {
    let batch: RecordedUnit[] = [];
    for (const item of items) {
      batch.push(await unitOf(batchedRun, item));
      if (batch.length === BATCH) {
        await store.recordPredictions(batch);
        batch = [];
      }
    }
    await store.recordPredictions(batch);
  });
  // The two runs above recorded nothing: the workers would resume them at start.
  for (const idle of [warm, scoringRun]) {
    await store.setBenchRunStatus(idle.id, 'canceled', null, ['queued']);
  }
  let jobRun: BenchRun;
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const queued = await timed(async () => {
    const started = await startRun(
      { store, benchRunner: workers.runner },
      { bench: 'tau2-all', sims: ['replay'], judge: null, mode: { kind: 'open' }, split: 'test' },
    );
    jobRun = await finished(store, started.id);
    return jobRun;
  });
  stalls.disable();
  await workers.stop();
  const n = items.length;
  const scoringRate = (n / scoring.ms) * 1000;
  console.log(
    `\n(2) writes: replay-only run over ${n.toLocaleString('en-US')} real items (${manifest.name}: tau2 retail, airline, telecom, every transition), one thread`,
  );
  const lines: [string, number][] = [
    ['predict + score on one thread, no store (the bound)', scoring.ms],
    [`recording alone, batches of ${BATCH} (the store's ceiling)`, recording.ms],
    ['+ one transaction per unit (before)', perUnit.ms],
    [`+ batches of ${BATCH} units (recordPredictions)`, batched.ms],
    [
      `the run through the job queue, scoring on a worker thread (${queued.value.status}, ${queued.value.done} done)`,
      queued.ms,
    ],
  ];
  console.log(
    `  the event loop during the queued run: p99 ${ms(stalls.percentile(99) / 1e6)}, longest ${ms(stalls.max / 1e6)}`,
  );
  for (const [name, value] of lines) {
    const unitsPerSecond = (n / value) * 1000;
    console.log(
      `  ${name.padEnd(64)} ${rate(unitsPerSecond).padStart(9)} units  ${(unitsPerSecond / scoringRate).toFixed(2)} of the bound`,
    );
  }
}

async function readItems(store: Store): Promise<BenchItem[]> {
  const items: BenchItem[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.getBenchItems({ name: 'tau2-all' }, { offset, limit: 1000 });
    items.push(...page.rows);
    if (page.rows.length < 1000) return items;
  }
}

async function main(): Promise<void> {
  console.log(
    `bench-pages: load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')} on a 2-core machine`,
  );
  const dir = MEMORY ? null : await mkdtemp(join(tmpdir(), 'bench-pages-'));
  const store = await openStore(dir === null ? { memory: true } : { dataDir: dir });
  try {
    if (!SKIP_PAGES) await pages(store);
    if (!SKIP_WRITES) await writes(store);
  } finally {
    await store.close();
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  }
}

await main();
