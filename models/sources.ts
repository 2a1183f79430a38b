// The trajectory files the bundled model is trained and evaluated on, relative to the data folder.
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';

export const DATA = process.env.TERRARIUM_DATA ?? resolve(import.meta.dirname, '../../shared/data');

/**
 * The MIT-licensed sources: tau2 retail/airline/telecom, tau-bench v1 airline, SWE-agent. InterCode is
 * left out on purpose: its task texts come from NL2Bash (GPL-3.0) and Spider (CC BY-SA 4.0), and
 * weights trained on them would carry that question into the shipped artifact.
 */
const FIXED_FILES = [
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
  'tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json',
  'tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json',
  'tau-bench-v1/historical_trajectories/gpt-4o-airline.json',
];

export async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(`${DATA}/swe-agent/trajectories`, { recursive: true });
  const swe = entries
    .filter((entry) => entry.endsWith('.traj'))
    .toSorted()
    .map((entry) => `swe-agent/trajectories/${entry}`);
  return [...FIXED_FILES, ...swe];
}
