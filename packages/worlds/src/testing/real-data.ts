/// <reference types="node" />
// Test and bench support only (reads files): loads real trajectories through the streaming reader.
import { createReadStream } from 'node:fs';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';

import { sharedDataPath } from '@terrarium/schema/testing';

/** Real files, resolved to the repository's shipped copies where it has them (InterCode: not). */
export const REAL_FILES = {
  tau2Retail: sharedDataPath('tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json'),
  tau2Telecom: sharedDataPath('tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json'),
  tau2Airline: sharedDataPath('tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json'),
  tauBenchV1Airline: sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
  intercodeSql: sharedDataPath(
    'intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json',
  ),
  intercodeBash: sharedDataPath(
    'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_1.json',
  ),
} as const;

/** Every trajectory of a real file; throws on any quarantined record, so counts stay exact. */
export async function loadTrajectories(file: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
    else if (event.type === 'quarantine' || event.type === 'fatal')
      throw new Error(`${file}: ${event.error.reason}`);
  }
  return trajectories;
}
