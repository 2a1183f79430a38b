/**
 * Curriculum throughput: generations per minute with the scripted policy, tasks per second through
 * the gates, and the share of a run spent outside rollouts (mutations, gates, bookkeeping), found
 * by replaying the very rollouts of the run alone. Goal: gates and bookkeeping ≤ 20% of the time.
 *
 * Two world factories in the same process, so the figures are ratios of one run: `rebuild` (every
 * rollout, oracle run and gate builds its world: the factory before this change) and `shared` (a
 * world is built once per task and seed and handed out as forks sharing its transition memo).
 *
 *   node --import tsx curriculum-throughput.ts [--generations 8] [--builtin]
 *
 * Seeds: the gated tasks of the InterCode bash gpt-4 runs (../shared, not shipped), else the
 * builtin scratch tasks.
 */
import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import { sharedDataAvailable, sharedDataPath } from '@terrarium/schema/testing';
import {
  builtinSeedTasks,
  evolvableWorldFactory,
  lineageScheduler,
  rollout,
  runCurriculum,
  runGates,
  scriptedPolicy,
  seedTasksFromTrajectories,
  type SeedTasks,
  type Task,
} from '@terrarium/curriculum';

const { values } = parseArgs({
  options: {
    generations: { type: 'string', default: '8' },
    builtin: { type: 'boolean', default: false },
  },
});
const generations = Number(values.generations);

async function seeds(): Promise<{ name: string; seeds: SeedTasks }> {
  if (values.builtin || !sharedDataAvailable('intercode')) {
    return { name: 'builtin', seeds: builtinSeedTasks() };
  }
  const folder = sharedDataPath('intercode/data/results/bash/gpt-4');
  const trajectories: Trajectory[] = [];
  for (const name of readdirSync(folder).toSorted()) {
    const file = join(folder, name);
    for await (const event of readTrajectories(createReadStream(file), { fileName: file }))
      if (event.type === 'trajectory') trajectories.push(event.trajectory);
  }
  return { name: 'intercode/bash gpt-4', seeds: await seedTasksFromTrajectories(trajectories) };
}

const { name, seeds: seed } = await seeds();
const policy = scriptedPolicy();

interface Figures {
  runSeconds: number;
  generationsPerMinute: number;
  rolloutsAloneSeconds: number;
  outsideRolloutsShare: number;
  gatedTasksPerSecond: number;
  generationsJson: string;
}

async function measure(cacheSize: number): Promise<Figures> {
  const factory = () => evolvableWorldFactory(seed.worlds, { cacheSize });
  const options = () => ({ createWorld: factory(), policy, scheduler: lineageScheduler() });
  // Warm-up (module code, JIT); the second, identical run is the one measured.
  await runCurriculum(seed.tasks, generations, options());
  const played: { task: Task; seed: number }[] = [];
  const start = performance.now();
  const result = await runCurriculum(seed.tasks, generations, {
    ...options(),
    onRollout: (episode, origin) => {
      played.push({ task: origin.task, seed: episode.seed });
    },
  });
  const runMs = performance.now() - start;
  // The same rollouts alone, through a fresh factory of the same kind: they pay for their own
  // worlds, as they would in a run without gates or mutations.
  const alone = factory();
  const aloneStart = performance.now();
  for (const { task, seed: rolloutSeed } of played) await rollout(task, policy, alone, rolloutSeed);
  const rolloutsMs = performance.now() - aloneStart;
  const nodes = result.lineages.flatMap((lineage) => lineage.nodes);
  const gates = factory();
  const gatesStart = performance.now();
  for (const node of nodes) await runGates(node.task, gates);
  const gatesMs = performance.now() - gatesStart;
  return {
    runSeconds: Number((runMs / 1000).toFixed(2)),
    generationsPerMinute: Number(((generations / runMs) * 60_000).toFixed(1)),
    rolloutsAloneSeconds: Number((rolloutsMs / 1000).toFixed(2)),
    outsideRolloutsShare: Number(((runMs - rolloutsMs) / runMs).toFixed(3)),
    gatedTasksPerSecond: Number(((nodes.length / gatesMs) * 1000).toFixed(1)),
    generationsJson: JSON.stringify(result.generations),
  };
}

const rebuild = await measure(0);
const shared = await measure(256);
// The cache must not change what a run does, only how fast.
if (rebuild.generationsJson !== shared.generationsJson)
  throw new Error('the shared-world run differs');
const { generationsJson: _a, ...rebuildFigures } = rebuild;
const { generationsJson: _b, ...sharedFigures } = shared;
process.stdout.write(
  `${JSON.stringify({
    seeds: name,
    tasks: seed.tasks.length,
    generations,
    rebuild: rebuildFigures,
    shared: sharedFigures,
    speedup: Number((rebuild.runSeconds / shared.runSeconds).toFixed(2)),
    gatesSpeedup: Number((shared.gatedTasksPerSecond / rebuild.gatedTasksPerSecond).toFixed(2)),
  })}\n`,
);
