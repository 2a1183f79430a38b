/**
 * Curriculum throughput: generations per minute with the scripted policy, tasks per second through
 * the gates, and the share of a run spent outside rollouts (mutations, gates, bookkeeping), found
 * by replaying the very rollouts of the run alone. Goal: gates and bookkeeping ≤ 20% of the time.
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
  Task,
  type SeedTasks,
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
    return {
      name: 'builtin',
      seeds: builtinSeedTasks(),
    };
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
const createWorld = evolvableWorldFactory(seed.worlds);
const policy = scriptedPolicy();
const played: { task: Task; seed: number }[] = [];
const byId = new Map<string, Task>();

const start = performance.now();
const result = await runCurriculum(seed.tasks, generations, {
  createWorld,
  policy,
  scheduler: lineageScheduler(),
  onRollout: (episode) => {
    const task = byId.get(episode.taskId);
    if (task !== undefined) played.push({ task, seed: episode.seed });
  },
  onGeneration: () => {},
});
const runMs = performance.now() - start;
// Tasks are known by id only once their lineage holds them; fill the map and count again.
for (const lineage of result.lineages)
  for (const node of lineage.nodes) byId.set(node.task.id, node.task);
played.length = 0;
// The second, identical run is the one measured against its rollouts (both warm).
const warm = performance.now();
const again = await runCurriculum(seed.tasks, generations, {
  createWorld,
  policy,
  scheduler: lineageScheduler(),
  onRollout: (episode) => {
    const task = byId.get(episode.taskId);
    if (task !== undefined) played.push({ task, seed: episode.seed });
  },
});
const warmMs = performance.now() - warm;
if (JSON.stringify(again.generations) !== JSON.stringify(result.generations))
  throw new Error('runs differ');

const alone = performance.now();
for (const { task, seed: rolloutSeed } of played)
  await rollout(task, policy, createWorld, rolloutSeed);
const rolloutsMs = performance.now() - alone;

const nodes = result.lineages.flatMap((lineage) => lineage.nodes);
const gatesStart = performance.now();
for (const node of nodes) await runGates(node.task, createWorld);
const gatesMs = performance.now() - gatesStart;

const figures = {
  seeds: name,
  tasks: seed.tasks.length,
  generations,
  rollouts: played.length,
  coldRunSeconds: Number((runMs / 1000).toFixed(2)),
  runSeconds: Number((warmMs / 1000).toFixed(2)),
  generationsPerMinute: Number(((generations / warmMs) * 60_000).toFixed(1)),
  rolloutsAloneSeconds: Number((rolloutsMs / 1000).toFixed(2)),
  outsideRolloutsShare: Number(((warmMs - rolloutsMs) / warmMs).toFixed(3)),
  gatedTasksPerSecond: Number(((nodes.length / gatesMs) * 1000).toFixed(1)),
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
