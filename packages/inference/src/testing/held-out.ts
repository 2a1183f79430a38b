/// <reference types="node" />
// Test, bench and training support only (reads files): the bundled model's task split and its
// trajectories.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { buildRetrievalIndex, predictionInputs } from '@terrarium/worlds';
import { z } from 'zod';
import { BUNDLED_MODEL_FOLDER } from '../node/load-model-folder';
import { buildPrompt, promptNeighbors, type Prompt } from '../prompt';
import type { TextTokenizer } from '../tokenizer';

const Split = z.object({ heldOutTasks: z.array(z.string()) });

/** The held-out task keys of the bundled model's split.json (see `taskKey`). */
export async function heldOutKeys(): Promise<string[]> {
  const json: unknown = JSON.parse(
    await readFile(join(BUNDLED_MODEL_FOLDER, 'split.json'), 'utf8'),
  );
  return Split.parse(json).heldOutTasks;
}

/** Which of the model's datasets a data file belongs to (one evaluation row each). */
export function sourceLabel(file: string): string {
  if (file.startsWith('tau2-bench/'))
    return `tau2/${/_(retail|airline|telecom)_/.exec(file)?.[1] ?? 'other'}`;
  if (file.startsWith('tau-bench-v1/')) return 'tau-bench-v1/airline';
  return 'swe-agent';
}

const TaskId = z.union([z.string(), z.number()]);

/**
 * The task a trajectory attempts, the unit of the split: every trial of a task lands on the same
 * side. tau2 and tau-bench name it in metadata (`taskId`); a SWE-agent run is named by its instance,
 * the file name (the eight marshmallow configurations share `marshmallow-code__marshmallow-1867`).
 * No absolute paths, so keys are the same on every machine.
 */
export function taskKey(file: string, trajectory: Trajectory): string {
  const source = sourceLabel(file);
  if (source === 'swe-agent') return `${source}/${basename(file).replace(/\.traj$/, '')}`;
  const id = TaskId.safeParse(trajectory.metadata.taskId);
  if (!id.success) throw new Error(`${file}: trajectory ${trajectory.externalId} has no taskId`);
  return `${source}/${id.data}`;
}

/** Held out: 20% of the tasks of each dataset, by a hash of the task key (stable across runs). */
export function isHeldOutTask(task: string): boolean {
  return BigInt(`0x${createHash('sha1').update(task).digest('hex')}`) % 5n === 0n;
}

export interface KeyedTrajectory {
  /** `<file under the data folder>#<index in file>`. */
  key: string;
  task: string;
  trajectory: Trajectory;
}

/** The trajectories of one data file, keyed as in the split. */
export async function keyedTrajectories(file: string): Promise<KeyedTrajectory[]> {
  // Keys name the file as the model's training saw it (its place under ../shared/data); the bytes
  // come from the repository's shipped copy when it has one.
  const path = sharedDataPath(file);
  const out: KeyedTrajectory[] = [];
  for await (const event of readTrajectories(createReadStream(path), { fileName: path })) {
    if (event.type === 'trajectory') {
      out.push({
        key: `${file}#${out.length}`,
        task: taskKey(file, event.trajectory),
        trajectory: event.trajectory,
      });
    } else if (event.type === 'quarantine' || event.type === 'fatal') {
      throw new Error(`${file}: ${event.error.reason}`);
    }
  }
  return out;
}

export const TAU2_RETAIL = 'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json';

/** The first trajectory of tau2 retail whose task is held out. */
export async function heldOutTau2Trajectory(): Promise<KeyedTrajectory> {
  const heldOut = new Set(await heldOutKeys());
  const found = (await keyedTrajectories(TAU2_RETAIL)).find(({ task }) => heldOut.has(task));
  if (found === undefined) throw new Error('no tau2 retail trajectory is held out');
  return found;
}

/**
 * The prompt the decode benchmarks time: the third transition of a held-out tau2 retail run (so
 * the prompt shows an earlier transition), with the 2 nearest transitions of the other retail runs,
 * built as the server and the browser build it.
 */
export async function heldOutBenchPrompt(tokenizer: TextTokenizer): Promise<Prompt> {
  const { trajectory } = await heldOutTau2Trajectory();
  const input = [...predictionInputs(trajectory)][2];
  if (input === undefined) throw new Error('the held-out trajectory has fewer than 3 transitions');
  const index = buildRetrievalIndex(
    (await keyedTrajectories(TAU2_RETAIL)).map((keyed) => keyed.trajectory),
  );
  const neighbors = promptNeighbors(index, input.context, input.history, input.action, {
    excludeTrajectory: trajectory.externalId,
  });
  return buildPrompt({ ...input, domain: trajectory.domain, neighbors }, tokenizer);
}
