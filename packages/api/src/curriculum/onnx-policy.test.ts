import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { loadOnnxModelFolder } from '@terrarium/inference/node';
import { createJobQueue, type CurriculumJobs, type JobQueue } from '@terrarium/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from '../router';
import { BUNDLED_POLICY_FOLDER, shippedOnnxSpec } from '../simulate/onnx-simulator';
import { loadTrajectory } from '../simulate/load-trajectories';
import { PROGRAM_PRINCIPAL } from '../trpc';
import { availablePolicies, curriculumPolicy } from './curriculum-deps';
import { startCurriculumWorkers } from './curriculum-workers';

const GreedyReference = z.object({
  prompt: z.string(),
  maxTokens: z.number().int().positive(),
  outputIds: z.array(z.number().int()),
  output: z.string(),
});

const REPO = path.resolve(BUNDLED_POLICY_FOLDER, '..', '..');
const SPEC = 'onnx:models/terrarium-policy-tiny';

describe('the bundled ONNX policy (models/terrarium-policy-tiny)', () => {
  it('decodes the training script’s greedy reference token for token (onnxruntime-node)', async () => {
    const reference = GreedyReference.parse(
      JSON.parse(await readFile(path.join(BUNDLED_POLICY_FOLDER, 'greedy-reference.json'), 'utf8')),
    );
    const { decoder, role } = await loadOnnxModelFolder(BUNDLED_POLICY_FOLDER);
    expect(role).toEqual({ role: 'policy', policyPromptFormat: 1 });
    const result = await decoder.generate(reference.prompt, { maxTokens: reference.maxTokens });
    expect(result.tokens).toEqual(reference.outputIds);
    expect(result.text).toBe(reference.output);
  }, 120_000);

  it('is offered by name, and only listed folders load on a server', async () => {
    expect(shippedOnnxSpec(BUNDLED_POLICY_FOLDER, REPO)).toBe(SPEC);
    expect(
      availablePolicies({ TERRARIUM_POLICIES: 'onnx:/models/mine, scripted' }).map(
        (policy) => policy.label,
      ),
    ).toEqual(['Scripted baseline', 'terrarium-policy-tiny (bundled ONNX)', 'onnx:/models/mine']);
    await expect(curriculumPolicy('onnx:/models/mine')).rejects.toThrow(
      'policy: onnx:/models/mine is not a configured policy folder',
    );
    await expect(
      curriculumPolicy(`onnx:${path.join(REPO, 'models/terrarium-wm-tiny')}`, {
        anyOnnxPath: true,
      }),
    ).rejects.toThrow('is a world model: its config.json has no "terrarium": {"role": "policy"}');
  }, 120_000);
});

describe('a curriculum played by the bundled ONNX policy, as a job', () => {
  let store: Store;
  let queue: JobQueue;
  let jobs: CurriculumJobs;
  beforeAll(async () => {
    store = await openMemoryStore();
    queue = await createJobQueue(store, { schema: 'pgboss_curriculum_onnx_policy' });
    jobs = await startCurriculumWorkers(store, queue);
  }, 180_000);
  afterAll(async () => {
    await jobs.stop();
    await queue.stop();
    await store.close();
  });

  it('completes its generations over the builtin tasks and stores every rollout', async () => {
    const api = appRouter.createCaller({
      store,
      principal: PROGRAM_PRINCIPAL,
      curriculumJobs: jobs,
    });
    const run = await api.curriculum.start({
      dataset: 'builtin',
      // As the Curriculum page sends it: the spec `curriculum.policies` offers (the server's
      // working folder is the repository here, as in tests and `scripts/start.sh`).
      policy: SPEC,
      generations: 2,
      probes: 4,
    });
    let detail = await api.curriculum.get({ runId: run.id });
    while (detail.run.status === 'queued' || detail.run.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      detail = await api.curriculum.get({ runId: run.id });
    }
    expect(detail.run).toMatchObject({ status: 'done', generationsDone: 2, error: null });
    // The seed tasks pass (4 of 4 probes each, above 6/8: the lineages move on); their first
    // mutations fail (the model does not copy the goal's fresh token; models/policy/README.md).
    expect(detail.generations.map((g) => [g.generation, g.tasks, g.passRate, g.meanTier])).toEqual([
      [1, 2, 1, 0],
      [2, 2, 0, 1],
    ]);
    const rollouts = await api.curriculum.rollouts({ runId: run.id, generation: 2 });
    expect(rollouts).toHaveLength(8);
    // Every move is stored as a step of a trajectory that replays in the viewer.
    const played: string[] = [];
    for (const rollout of rollouts) {
      const trajectory = await store.getTrajectory(rollout.trajectoryId);
      if (trajectory === null) throw new Error('a stored rollout');
      const { steps } = await loadTrajectory(store, trajectory);
      const actions = steps.map((step) =>
        step.action.type === 'command' ? step.action.command : step.action.type,
      );
      played.push(`${rollout.lineageId} #${rollout.probe}: ${actions.join('; ')}`);
    }
    // The right commands in the right order, but a token of its own where the goal says
    // `basil-727` and `amber-868`: seeded sampling makes each probe a different episode.
    expect(played).toEqual([
      'scratch-last-line #0: echo basil-622 > /tmp/step-1.txt; cat /data/notes.txt; echo charlie > /data/last.txt; tool_call',
      'scratch-last-line #1: echo basil-629 > /tmp/step-1.txt; cat /data/notes.txt; echo charlie > /data/last.txt; tool_call',
      'scratch-last-line #2: echo basil-622 > /tmp/step-1.txt; cat /data/notes.txt; echo charlie > /data/last.txt; tool_call',
      'scratch-last-line #3: echo basil-424 > /tmp/step-1.txt; cat /data/notes.txt; echo charlie > /data/last.txt; tool_call',
      'scratch-count-lines #0: echo amber-974 > /tmp/step-1.txt; wc -l /data/notes.txt; tool_call',
      'scratch-count-lines #1: echo amber-947 > /tmp/step-1.txt; wc -l /data/notes.txt; tool_call',
      'scratch-count-lines #2: echo amber-987 > /tmp/step-1.txt; wc -l /data/notes.txt; tool_call',
      'scratch-count-lines #3: echo amber-887 > /tmp/step-1.txt; wc -l /data/notes.txt; tool_call',
    ]);
    const goals = detail.lineages.map((lineage) => lineage.nodes[1]?.task.goal.split('\n').at(-1));
    expect(goals).toEqual([
      'First, write the line basil-727 into /tmp/step-1.txt.',
      'First, write the line amber-868 into /tmp/step-1.txt.',
    ]);
  }, 300_000);
});
