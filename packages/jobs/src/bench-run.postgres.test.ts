import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createPgExecutor, openStore, type SqlExecutor, type Store } from '@terrarium/db';
import { buildBenchManifest, postgresForTests, type PostgresForTests } from '@terrarium/db/testing';
import { readTrajectories } from '@terrarium/formats';
import type { BenchItem, BenchTurn, Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkJob } from './chunk-job';
import { createJobQueue } from './job-queue';
import { spawnWorkerChild, type WorkerChild } from './test-support/spawn-worker';
import { watchRun } from './watch-run';

const RETAIL_RUNS = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
const ITEM_COUNT = 110;
const SIMS = ['replay', 'retrieval'];
const RULE_METRICS_PER_ITEM = 11;

async function readRetail(): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(RETAIL_RUNS), {
    fileName: 'gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
  })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
  }
  return trajectories;
}

/** Every transition of each trajectory as an item, with the real earlier turns as its history. */
function itemsOf(trajectories: Trajectory[], limit: number): BenchItem[] {
  const items: BenchItem[] = [];
  for (const trajectory of trajectories) {
    const turns: (BenchTurn & { stepIndex: number })[] = trajectory.steps.flatMap((step) =>
      step.observation
        ? [{ action: step.action, observation: step.observation, stepIndex: step.index }]
        : [],
    );
    turns.forEach((turn, turnIndex) => {
      const history = turns
        .slice(0, turnIndex)
        .map(({ action, observation }) => ({ action, observation }));
      const id = createHash('sha256')
        .update(JSON.stringify([trajectory.externalId, history, turn.action]))
        .digest('hex')
        .slice(0, 24);
      items.push({
        id,
        task: 'tau2-bench/retail',
        domain: trajectory.domain,
        split: 'test',
        origin: {
          dataset: 'tau2 retail',
          trajectory: trajectory.externalId,
          stepIndex: turn.stepIndex,
        },
        turnIndex,
        totalTurns: turns.length,
        context: {
          task: trajectory.task,
          systemPrompt: trajectory.systemPrompt,
          tools: trajectory.tools,
        },
        history,
        action: turn.action,
        real: turn.observation,
      });
    });
  }
  return items.slice(0, limit);
}

let server: PostgresForTests | undefined;
let admin: SqlExecutor | undefined;
const schema = `t_${randomBytes(6).toString('hex')}`;
let databaseUrl = '';
let store: Store | undefined;
const children: WorkerChild[] = [];

beforeAll(async () => {
  server = await postgresForTests();
  admin = await createPgExecutor(server.url);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(server.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  databaseUrl = url.toString();
  store = await openStore({ databaseUrl });
}, 120_000);

afterAll(async () => {
  for (const child of children) child.signal('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await store?.close();
  await admin?.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin?.query(`DROP SCHEMA IF EXISTS pgboss_${schema} CASCADE`);
  await admin?.close();
  await server?.stop();
});

function chunksOf(child: WorkerChild, prefix: 'start' | 'end'): ChunkJob[] {
  return child
    .lines()
    .filter((line) => line.startsWith(`${prefix} `))
    .map((line) => ChunkJob.parse(JSON.parse(line.slice(prefix.length + 1))));
}

const unitKey = (sim: string, itemId: string) => `${sim}/${itemId}`;

describe('bench runs on PostgreSQL with two worker processes', () => {
  it('drains one run of 220 units with one worker killed mid-run: each unit predicted once, the survivor finishes the killed chunk', async () => {
    if (!store || !admin) throw new Error('no store (see the beforeAll error)');
    const items = itemsOf(await readRetail(), ITEM_COUNT);
    expect(items).toHaveLength(ITEM_COUNT);
    await store.createBench(buildBenchManifest('tau2-retail', items), items);

    const bossSchema = `pgboss_${schema}`;
    const queue = await createJobQueue(store, {
      schema: bossSchema,
      chunkSize: 16,
      expireInSeconds: 3,
      maintenanceIntervalSeconds: 1,
      retryDelaySeconds: 0,
    });
    try {
      // The doomed worker is slow, so that it is killed holding a chunk half done.
      const doomed = spawnWorkerChild([databaseUrl, bossSchema, 'doomed', '150']);
      const survivor = spawnWorkerChild([databaseUrl, bossSchema, 'survivor', '10']);
      children.push(doomed, survivor);
      await Promise.all([doomed, survivor].map((child) => child.waitForLine((l) => l === 'ready')));

      const run = await queue.submitBenchRun({
        bench: 'tau2-retail',
        sims: SIMS,
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      });
      expect(run.total).toBe(ITEM_COUNT * SIMS.length);

      await doomed.waitForLine((line) => line.startsWith('start '));
      // Kill it once it has recorded something, so its chunk is partly done.
      for (;;) {
        const [row] = await admin.query(
          `SELECT count(*)::int AS n FROM ${schema}.run_predictions
           WHERE run_id = $1::bigint AND provenance->'detail'->>'worker' = 'doomed'`,
          [run.id],
        );
        if (row?.['n'] !== 0) break;
        await new Promise((done) => setTimeout(done, 20));
      }
      doomed.signal('SIGKILL');
      expect((await doomed.exited).signal).toBe('SIGKILL');
      const finishedByDoomed = new Set(
        chunksOf(doomed, 'end').flatMap((c) => c.itemIds.map((id) => unitKey(c.sim, id))),
      );
      const heldByDoomed = chunksOf(doomed, 'start')
        .flatMap((c) => c.itemIds.map((id) => unitKey(c.sim, id)))
        .filter((unit) => !finishedByDoomed.has(unit));
      expect(heldByDoomed.length).toBeGreaterThan(0);

      let final;
      for await (const progress of watchRun(store, run.id, { intervalMs: 250 })) final = progress;
      expect(final).toMatchObject({ status: 'done', done: 220, failed: 0, total: 220 });

      const [counts] = await admin.query(
        `SELECT count(*)::int AS n, count(DISTINCT (item_id, sim))::int AS units
         FROM ${schema}.run_predictions WHERE run_id = $1::bigint`,
        [run.id],
      );
      expect(counts).toEqual({ n: ITEM_COUNT * SIMS.length, units: ITEM_COUNT * SIMS.length });
      const [scoreCounts] = await admin.query(
        `SELECT count(*)::int AS n, count(DISTINCT (item_id, sim, source, metric))::int AS distinct_scores
         FROM ${schema}.run_scores WHERE run_id = $1::bigint`,
        [run.id],
      );
      expect(scoreCounts).toEqual({
        n: ITEM_COUNT * SIMS.length * RULE_METRICS_PER_ITEM,
        distinct_scores: ITEM_COUNT * SIMS.length * RULE_METRICS_PER_ITEM,
      });

      const predictions = await store.listPredictions(run.id, { offset: 0, limit: 1000 });
      const workerOf = new Map(
        predictions.rows.map((p) => {
          const provenance = p.provenance;
          const detail =
            typeof provenance === 'object' && provenance !== null && !Array.isArray(provenance)
              ? provenance['detail']
              : null;
          const worker =
            typeof detail === 'object' && detail !== null && !Array.isArray(detail)
              ? detail['worker']
              : null;
          return [unitKey(p.sim, p.itemId), worker];
        }),
      );
      expect(heldByDoomed.every((unit) => workerOf.has(unit))).toBe(true);
      const takenOver = heldByDoomed.filter((unit) => workerOf.get(unit) === 'survivor');
      expect(takenOver.length).toBeGreaterThan(0);
      expect(new Set(workerOf.values())).toEqual(new Set(['doomed', 'survivor']));

      survivor.signal('SIGTERM');
      expect(await survivor.exited).toEqual({ code: 0, signal: null });
    } finally {
      await queue.stop();
    }
  }, 120_000);
});
