/// <reference types="node" />
// Test support only (reads files): real trajectories through the streaming reader, as an import does.
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';

export async function readTrajectoryFile(file: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
  }
  return trajectories;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    })
    .toSorted();
}

/** Every trajectory of the files under `../shared/data/<folder>` whose names end with `suffix`. */
export async function readSharedTrajectories(
  folder: string,
  suffix: string,
): Promise<Trajectory[]> {
  const files = filesUnder(sharedDataPath(folder)).filter((file) => file.endsWith(suffix));
  return (await Promise.all(files.map(readTrajectoryFile))).flat();
}
