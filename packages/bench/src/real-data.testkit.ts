/// <reference types="node" />
// Test support only: reads the real datasets of ../shared/data through the real importer.
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import type { BenchSource } from './build-bench';

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    })
    .toSorted();
}

const TAU2 = 'tau2-bench/results';

/** Files of each dataset, relative to ../shared/data. */
export const REAL_FILES: Record<string, () => string[]> = {
  'tau2-retail': () => [sharedDataPath(`${TAU2}/gpt-4.1_retail_defautl_gpt-4.1_1trials.json`)],
  'tau2-airline': () => [sharedDataPath(`${TAU2}/gpt-4.1_airline_default_gpt-4.1_1trials.json`)],
  'tau2-telecom': () => [sharedDataPath(`${TAU2}/gpt-4.1_telecom_default_gpt-4.1_1trials.json`)],
  'tau-bench-airline': () => [
    sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
  ],
  'swe-agent': () => filesUnder(sharedDataPath('swe-agent')).filter((f) => f.endsWith('.traj')),
  'intercode-bash': () => filesUnder(sharedDataPath('intercode/data/results/bash')),
};

export async function readDataset(dataset: string): Promise<Trajectory[]> {
  const files = REAL_FILES[dataset]?.() ?? [];
  if (files.length === 0) throw new Error(`unknown dataset ${dataset}`);
  const trajectories: Trajectory[] = [];
  for (const file of files) {
    for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
      if (event.type === 'trajectory') trajectories.push(event.trajectory);
      else if (event.type === 'quarantine' || event.type === 'fatal')
        throw new Error(`${file}: ${event.error.reason}`);
    }
  }
  return trajectories;
}

export async function readSources(datasets: readonly string[]): Promise<BenchSource[]> {
  const sources: BenchSource[] = [];
  for (const dataset of datasets) {
    for (const trajectory of await readDataset(dataset)) sources.push({ dataset, trajectory });
  }
  return sources;
}
