import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { createJobQueue, type CurriculumJobs, type JobQueue } from '@terrarium/jobs';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { appRouter } from '../router';
import { PROGRAM_PRINCIPAL } from '../trpc';
import { startCurriculumWorkers } from './curriculum-workers';

describe('curriculum router', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  it('runs the builtin demo curriculum and returns generations and lineages', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const result = await api.curriculum.run({ dataset: 'builtin', generations: 3 });
    expect(
      result.generations.map((stats) => [stats.generation, stats.passRate, stats.meanTier]),
    ).toEqual([
      [1, 1, 0],
      [2, 1, 1],
      [3, 1, 2],
    ]);
    expect(
      result.lineages.map((lineage) => lineage.nodes.map((node) => node.axis ?? 'seed')),
    ).toEqual([
      ['seed', 'execution-length', 'scenario', 'verifier'],
      ['seed', 'execution-length', 'scenario', 'verifier'],
    ]);
  });

  it('is for researchers only', async () => {
    const labeler = appRouter.createCaller({
      store,
      principal: { kind: 'user', userId: 'u1', name: 'lee', role: 'labeler' },
    });
    await expect(labeler.curriculum.run({ dataset: 'builtin' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('names a dataset that is not there, and what it could be (builtin included)', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    await expect(api.curriculum.run({ dataset: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'dataset: no dataset "nope" (datasets: builtin)',
    });
  });
});

describe('curriculum runs as jobs through the router', () => {
  let store: Store;
  let queue: JobQueue;
  let jobs: CurriculumJobs;
  beforeAll(async () => {
    store = await openMemoryStore();
    queue = await createJobQueue(store, { schema: 'pgboss_curriculum_router' });
    jobs = await startCurriculumWorkers(store, queue);
  }, 60_000);
  afterAll(async () => {
    await jobs.stop();
    await queue.stop();
    await store.close();
  });

  const api = () =>
    appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL, curriculumJobs: jobs });

  async function finished(runId: string) {
    for (;;) {
      const detail = await api().curriculum.get({ runId });
      if (detail.run.status !== 'queued' && detail.run.status !== 'running') return detail;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('starts a run, which the workers play to the end; its rollouts are listed per generation', async () => {
    const run = await api().curriculum.start({ dataset: 'builtin', generations: 2 });
    expect(run).toMatchObject({ status: 'queued', generationsTotal: 2 });
    expect(run.settings).toEqual({
      policy: 'scripted',
      sim: null,
      scheduler: 'lineage',
      probes: 8,
      maxDepth: 15,
      seed: 0,
    });
    const detail = await finished(run.id);
    expect(detail.run.status).toBe('done');
    expect(detail.generations.map((g) => [g.generation, g.passRate, g.meanTier])).toEqual([
      [1, 1, 0],
      [2, 1, 1],
    ]);
    expect(detail.lineages.map((lineage) => lineage.nodes.length)).toEqual([3, 3]);
    // Two generations played tiers 0 and 1; the second one's advance made tier 2.
    expect(detail.lineages.map((lineage) => lineage.reach)).toEqual([
      { made: 2, played: 1 },
      { made: 2, played: 1 },
    ]);
    const rollouts = await api().curriculum.rollouts({ runId: run.id, generation: 2 });
    expect(rollouts).toHaveLength(16);
    expect(rollouts.every((rollout) => rollout.mode === 'executable' && rollout.passed)).toBe(true);
    expect(new Set(rollouts.map((rollout) => rollout.lineageId))).toEqual(
      new Set(['scratch-last-line', 'scratch-count-lines']),
    );
    expect((await api().curriculum.list()).map((listed) => listed.id)).toContain(run.id);
  }, 60_000);

  it('cancels a run', async () => {
    const run = await api().curriculum.start({ dataset: 'builtin', generations: 200, probes: 32 });
    expect(await api().curriculum.cancel({ runId: run.id })).toEqual({ canceled: true });
    const detail = await finished(run.id);
    expect(detail.run.status).toBe('canceled');
    expect(detail.run.generationsDone).toBeLessThan(200);
  }, 60_000);

  it('goes on with a canceled run from its last finished generation, and only with such a run', async () => {
    const run = await api().curriculum.start({ dataset: 'builtin', generations: 3 });
    expect(await api().curriculum.cancel({ runId: run.id })).toEqual({ canceled: true });
    const canceled = await finished(run.id);
    expect(canceled.run.status).toBe('canceled');
    const resumed = await api().curriculum.resume({ runId: run.id });
    expect(resumed.status).toBe('queued');
    const done = await finished(run.id);
    expect([done.run.status, done.run.generationsDone]).toEqual(['done', 3]);
    expect(done.generations.map((generation) => generation.generation)).toEqual([1, 2, 3]);
    await expect(api().curriculum.resume({ runId: run.id })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: `run ${run.id} is done: only a canceled or failed run goes on`,
    });
  }, 60_000);

  it('says why a dataset gives no seed task', async () => {
    // The real tau-bench airline runs (shipped in demo/data): tool calls, no terminal to rebuild.
    const files = (
      await collectDataFiles([
        sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
      ])
    ).map(readDataFile);
    await importFiles(store, files, { dataset: 'airline' });
    // The page asks before a run is started, and says the same.
    await expect(api().curriculum.seeds({ dataset: 'airline' })).resolves.toEqual({
      tasks: 0,
      rejected: 200,
      commonestReason: 'a tool trajectory has no terminal world',
    });
    expect(await api().curriculum.seeds({ dataset: 'builtin' })).toEqual({
      tasks: 2,
      rejected: 0,
      commonestReason: null,
    });
    // walk 43: "no task of 3 passes its gates (100 rejected)" gave neither the name nor a reason.
    await expect(api().curriculum.start({ dataset: 'airline' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message:
        'no task of airline passes its gates (200 rejected; most often: a tool trajectory has no terminal world)',
    });
  }, 60_000);

  it('refuses what the run could not do, before queueing it', async () => {
    await expect(
      api().curriculum.start({ dataset: 'builtin', policy: 'onnx:/x' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message:
        'policy: onnx:/x is not a configured policy folder; the server loads only the policy folders the Curriculum page offers (add it to TERRARIUM_POLICIES)',
    });
    await expect(
      api().curriculum.start({ dataset: 'builtin', policy: 'random' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'policy: "random" is not a policy; expected scripted, onnx:PATH or openai:URL#MODEL',
    });
    await expect(
      api().curriculum.start({ dataset: 'builtin', policy: 'openai:http://example.org/v1#m' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      api().curriculum.start({ dataset: 'builtin', sim: 'retrieval' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message:
        "sim: retrieval draws on the seed dataset's recorded transitions; the builtin tasks have none",
    });
    await expect(api().curriculum.start({ dataset: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const withoutWorkers = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    await expect(withoutWorkers.curriculum.start({ dataset: 'builtin' })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(api().curriculum.get({ runId: '999999' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
