import {
  builtinSeedTasks,
  CurriculumCheckpoint,
  evolvableWorldFactory,
  lineageScheduler,
  runCurriculum,
  scriptedPolicy,
} from '@terrarium/curriculum';
import type { CurriculumRunRecord, Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCurriculumJobs, type CurriculumJobs } from './curriculum-jobs';
import {
  CurriculumRunSettings,
  executeCurriculumRun,
  type CurriculumRunDeps,
} from './curriculum-run';
import { createJobQueue, type JobQueue } from './job-queue';

const DEPS: CurriculumRunDeps = {
  seedsFor: async () => builtinSeedTasks(),
  policyFor: async (spec) => {
    if (spec !== 'scripted') throw new Error(`no policy ${spec}`);
    return scriptedPolicy();
  },
  simulatorFor: () => Promise.reject(new Error('no simulator in these tests')),
};
const SETTINGS = CurriculumRunSettings.parse({});

let store: Store;
let schemaCount = 0;
beforeAll(async () => {
  store = await openMemoryStore();
}, 120_000);
afterAll(async () => {
  await store.close();
});

async function jobsFor(schema = `pgboss_cur_${++schemaCount}`) {
  const queue = await createJobQueue(store, { schema, maintenanceIntervalSeconds: 1 });
  const jobs = await startCurriculumJobs(queue, {
    deps: DEPS,
    pollingIntervalSeconds: 0.5,
    statusPollMs: 20,
  });
  return { queue, jobs };
}

async function stopAll(queue: JobQueue, jobs: CurriculumJobs) {
  await jobs.stop();
  await queue.stop();
}

/** Polls the store (the run may be worked on by any process) until `until` holds. */
async function waitFor(
  runId: string,
  until: (run: CurriculumRunRecord) => boolean,
): Promise<CurriculumRunRecord> {
  for (;;) {
    const run = await store.getCurriculumRun(runId);
    if (run === null) throw new Error(`no run ${runId}`);
    if (until(run)) return run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The same curriculum played in one go, in process: what a resumed job must end with. */
async function uninterrupted(generations: number) {
  const seeds = builtinSeedTasks();
  return runCurriculum(seeds.tasks, generations, {
    createWorld: evolvableWorldFactory(seeds.worlds),
    policy: scriptedPolicy(),
    scheduler: lineageScheduler(),
  });
}

describe('curriculum runs as jobs (PGlite)', () => {
  it('plays a run to the end: each generation and checkpoint recorded, rollouts stored as trajectories', async () => {
    const { queue, jobs } = await jobsFor();
    try {
      const run = await jobs.submit({ dataset: 'builtin', settings: SETTINGS, generations: 3 });
      expect(run.status).toBe('queued');
      const done = await waitFor(run.id, (r) => r.status === 'done');
      expect(done.generationsDone).toBe(3);
      const generations = await store.listCurriculumGenerations(run.id);
      const expected = (await uninterrupted(3)).generations;
      expect(generations.map((g) => g.stats)).toEqual(JSON.parse(JSON.stringify(expected)));
      // 2 lineages × 8 probes × 3 generations, in the run's own dataset.
      const dataset = await store.getDatasetByName(done.rolloutsDataset);
      expect(dataset?.name).toBe(`curriculum-${run.id}-rollouts`);
      const page = await store.listTrajectories(
        { datasetId: dataset?.id ?? '' },
        { offset: 0, limit: 100 },
      );
      expect(page.total).toBe(48);
      const first = page.rows.find((row) => row.externalId === `${run.id}/g1/scratch-last-line/p0`);
      if (first === undefined) throw new Error('the first rollout is stored');
      const steps = await store.getSteps(first.id, 0, 10);
      expect(steps.steps.map((step) => step.action)).toEqual([
        { type: 'command', command: 'cat /data/notes.txt', interpreter: 'bash' },
        { type: 'command', command: 'echo charlie > /data/last.txt', interpreter: 'bash' },
        { type: 'tool_call', name: 'submit', arguments: { answer: '' }, callId: null },
      ]);
      expect(steps.steps[0]?.observation?.content).toBe('alpha\nbravo\ncharlie\n');
    } finally {
      await stopAll(queue, jobs);
    }
  }, 120_000);

  it('stops a canceled run at the next rollout and keeps what it recorded', async () => {
    const { queue, jobs } = await jobsFor();
    try {
      const run = await jobs.submit({
        dataset: 'builtin',
        settings: { ...SETTINGS, probes: 32 },
        generations: 30,
      });
      await waitFor(run.id, (r) => r.generationsDone >= 1);
      expect(await jobs.cancel(run.id)).toBe(true);
      const stopped = await waitFor(run.id, (r) => r.status === 'canceled');
      // Let the worker notice; nothing is recorded after the cancel.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await store.getCurriculumRun(run.id);
      expect(after?.generationsDone).toBe(stopped.generationsDone);
      expect(after?.generationsDone).toBeLessThan(30);
      expect(await jobs.cancel(run.id)).toBe(false);
    } finally {
      await stopAll(queue, jobs);
    }
  }, 120_000);

  it('resumes a run whose worker died after generation 2 with the same lineages', async () => {
    const run = await store.createCurriculumRun({
      dataset: 'builtin',
      settings: SETTINGS,
      generations: 5,
    });
    // The "crashed" worker: it plays until 2 generations are recorded, then stops dead, leaving
    // the run `running` with its checkpoint (no job waits for it).
    const dying = new AbortController();
    const playing = executeCurriculumRun(store, run.id, DEPS, { signal: dying.signal });
    await waitFor(run.id, (r) => r.generationsDone >= 2);
    dying.abort();
    expect((await playing).stoppedBy).toBe('worker-stop');
    const left = await store.getCurriculumRun(run.id);
    expect(left?.status).toBe('running');
    const resumedFrom = left?.generationsDone ?? 0;

    const { queue, jobs } = await jobsFor();
    try {
      expect(await jobs.resume()).toEqual([run.id]);
      // Enqueued once: a second resume finds its job waiting or already running.
      const again = await jobs.resume();
      expect(again.filter((id) => id === run.id).length).toBeLessThanOrEqual(1);
      const done = await waitFor(run.id, (r) => r.status === 'done');
      expect(done.generationsDone).toBe(5);
      const through = await uninterrupted(5);
      const checkpoint = CurriculumCheckpoint.parse(await store.getCurriculumCheckpoint(run.id));
      expect(checkpoint.lineages).toEqual(JSON.parse(JSON.stringify(through.lineages)));
      const generations = await store.listCurriculumGenerations(run.id);
      expect(generations.map((g) => g.generation)).toEqual([1, 2, 3, 4, 5]);
      expect(generations.map((g) => g.stats)).toEqual(
        JSON.parse(JSON.stringify(through.generations)),
      );
      expect(resumedFrom).toBeGreaterThanOrEqual(2);
    } finally {
      await stopAll(queue, jobs);
    }
  }, 120_000);

  it('fails a run whose seeds cannot be had, with the reason', async () => {
    const run = await store.createCurriculumRun({
      dataset: 'nope',
      settings: SETTINGS,
      generations: 2,
    });
    const outcome = await executeCurriculumRun(store, run.id, {
      ...DEPS,
      seedsFor: () => Promise.reject(new Error('no dataset nope')),
    });
    expect(outcome).toEqual({ recorded: 0, stoppedBy: 'failed' });
    expect(await store.getCurriculumRun(run.id)).toMatchObject({
      status: 'failed',
      error: 'no dataset nope',
    });
  });
});
