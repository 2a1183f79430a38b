/// <reference types="node" />
// Test and bench support only (reads files): the bundled model's held-out split and its trajectories.
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { z } from 'zod';
import { BUNDLED_MODEL_FOLDER } from '../node/load-model-folder';

const Split = z.object({ heldOut: z.array(z.string()) });

/** Keys are `<file under the data folder>#<index in file>#<externalId>` (see models/train.py). */
export async function heldOutKeys(): Promise<string[]> {
  const json: unknown = JSON.parse(
    await readFile(join(BUNDLED_MODEL_FOLDER, 'split.json'), 'utf8'),
  );
  return Split.parse(json).heldOut;
}

export interface KeyedTrajectory {
  key: string;
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
        key: `${file}#${out.length}#${event.trajectory.externalId}`,
        trajectory: event.trajectory,
      });
    } else if (event.type !== 'format') {
      throw new Error(`${file}: ${event.error.reason}`);
    }
  }
  return out;
}

export const TAU2_RETAIL = 'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json';

/** The first held-out trajectory of tau2 retail. */
export async function heldOutTau2Trajectory(): Promise<KeyedTrajectory> {
  const heldOut = new Set(await heldOutKeys());
  const found = (await keyedTrajectories(TAU2_RETAIL)).find(({ key }) => heldOut.has(key));
  if (found === undefined) throw new Error('no tau2 retail trajectory is held out');
  return found;
}
