// The trajectory files the bundled model is trained and evaluated on, relative to the data folder.
import { readdir } from 'node:fs/promises';

export const DATA = process.env.TERRARIUM_DATA ?? '/work/shared/data';

/** The sources named in issue 3: tau2 retail/airline/telecom, tau-bench v1 airline, InterCode, SWE-agent. */
const FIXED_FILES = [
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
  'tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json',
  'tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json',
  'tau-bench-v1/historical_trajectories/gpt-4o-airline.json',
  'intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json',
  'intercode/data/results/sql/human/ic_sql_multiturn_human_10_turns.json',
  ...[1, 2, 3, 4].map(
    (fs) => `intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_${fs}.json`,
  ),
  ...[1, 2, 3, 4].map(
    (fs) => `intercode/data/results/bash/gpt-3.5/ic_bash_react_10_turns_fs_${fs}.json`,
  ),
];

export async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(`${DATA}/swe-agent/trajectories`, { recursive: true });
  const swe = entries
    .filter((entry) => entry.endsWith('.traj'))
    .toSorted()
    .map((entry) => `swe-agent/trajectories/${entry}`);
  return [...FIXED_FILES, ...swe];
}
