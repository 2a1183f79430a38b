/// <reference types="node" />
// Test and bench support only (reads files with node:fs); product code never imports it.
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import { sharedDataAvailable, sharedDataPath } from '@terrarium/schema/testing';
import { scoringItems, type ScoringItem } from '../items';

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    })
    .toSorted();
}

const tau2 = (name: string) => sharedDataPath(`tau2-bench/results/${name}`);
const intercode = (path: string) => sharedDataPath(`intercode/data/results/${path}`);

/** The real datasets, one entry per source benchmark and domain (files via the one resolver). */
export const REAL_DATASETS: Record<string, () => string[]> = {
  'tau-bench-v1/airline': () => [
    sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
  ],
  'tau2/retail': () => [tau2('gpt-4.1_retail_defautl_gpt-4.1_1trials.json')],
  'tau2/telecom': () => [tau2('gpt-4.1_telecom_default_gpt-4.1_1trials.json')],
  'tau2/airline': () => [tau2('gpt-4.1_airline_default_gpt-4.1_1trials.json')],
  'intercode/bash': () => filesUnder(intercode('bash')),
  'intercode/sql': () => [intercode('sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json')],
  'swe-agent': () =>
    filesUnder(sharedDataPath('swe-agent')).filter((file) => file.endsWith('.traj')),
};

/** Whether a dataset's files are here: InterCode only where ../shared/data has it (licence). */
export function datasetAvailable(dataset: string): boolean {
  return !dataset.startsWith('intercode/') || sharedDataAvailable('intercode');
}

/** Every transition of a dataset with its history, read through the real importer. */
export async function loadItems(dataset: string): Promise<ScoringItem[]> {
  const files = REAL_DATASETS[dataset]?.() ?? [];
  if (files.length === 0) throw new Error(`unknown dataset ${dataset}`);
  const items: ScoringItem[] = [];
  for (const file of files) {
    for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
      if (event.type === 'trajectory') items.push(...scoringItems(event.trajectory));
      else if (event.type === 'quarantine' || event.type === 'fatal')
        throw new Error(`${file}: ${event.error.reason}`);
    }
  }
  return items;
}
