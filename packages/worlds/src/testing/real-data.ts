/// <reference types="node" />
// Test and bench support only (reads files): loads real trajectories through the streaming reader.
import { createReadStream } from 'node:fs';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';

export const DATA = '/work/shared/data';

export const REAL_FILES = {
  tau2Retail: `${DATA}/tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json`,
  tau2Telecom: `${DATA}/tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json`,
  tau2Airline: `${DATA}/tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json`,
  tauBenchV1Airline: `${DATA}/tau-bench-v1/historical_trajectories/gpt-4o-airline.json`,
  intercodeSql: `${DATA}/intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json`,
  intercodeBash: `${DATA}/intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_1.json`,
} as const;

/** Every trajectory of a real file; throws on any quarantined record, so counts stay exact. */
export async function loadTrajectories(file: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
    else if (event.type !== 'format') throw new Error(`${file}: ${event.error.reason}`);
  }
  return trajectories;
}
