/// <reference types="node" />
// Test and bench support only (reads files with node:fs); product code never imports it.
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import { scoringItems, type ScoringItem } from '../items';

export const DATA = '/work/shared/data';

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    })
    .toSorted();
}

const TAU2 = `${DATA}/tau2-bench/results`;
const INTERCODE = `${DATA}/intercode/data/results`;

/** The real datasets of ../shared/data, one entry per source benchmark and domain. */
export const REAL_DATASETS: Record<string, () => string[]> = {
  'tau-bench-v1/airline': () => [
    `${DATA}/tau-bench-v1/historical_trajectories/gpt-4o-airline.json`,
  ],
  'tau2/retail': () => [`${TAU2}/gpt-4.1_retail_defautl_gpt-4.1_1trials.json`],
  'tau2/telecom': () => [`${TAU2}/gpt-4.1_telecom_default_gpt-4.1_1trials.json`],
  'tau2/airline': () => [`${TAU2}/gpt-4.1_airline_default_gpt-4.1_1trials.json`],
  'intercode/bash': () => filesUnder(`${INTERCODE}/bash`),
  'intercode/sql': () => [`${INTERCODE}/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json`],
  'swe-agent': () => filesUnder(`${DATA}/swe-agent`).filter((file) => file.endsWith('.traj')),
};

/** Every transition of a dataset with its history, read through the real importer. */
export async function loadItems(dataset: string): Promise<ScoringItem[]> {
  const files = REAL_DATASETS[dataset]?.() ?? [];
  if (files.length === 0) throw new Error(`unknown dataset ${dataset}`);
  const items: ScoringItem[] = [];
  for (const file of files) {
    for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
      if (event.type === 'trajectory') items.push(...scoringItems(event.trajectory));
      else if (event.type !== 'format') throw new Error(`${file}: ${event.error.reason}`);
    }
  }
  return items;
}
