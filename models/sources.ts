// The trajectory files the bundled model is trained and evaluated on, named by their place under
// ../shared/data; sharedDataPath reads each from the repository's shipped copy when it has one.
import { readdir, readFile } from 'node:fs/promises';
import { sharedDataAvailable, sharedDataPath } from '../packages/schema/src/testing/index.ts';

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

const SWE_AGENT_TRAJECTORIES = 'swe-agent/trajectories';

/** The bundled model's record of the files it trained on (export-examples.ts writes it). */
const RECORDED_SPLIT = new URL('terrarium-wm-tiny/split.json', import.meta.url);

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The SWE-agent files as split.json records them. The shipped copies flatten the folders with `__`,
 * which names may contain too, so the upstream paths cannot be read back from the shipped folder.
 */
async function recordedSweAgentFiles(): Promise<string[]> {
  const recorded: unknown = JSON.parse(await readFile(RECORDED_SPLIT, 'utf8'));
  const files =
    typeof recorded === 'object' && recorded !== null && 'files' in recorded
      ? recorded.files
      : undefined;
  if (!isStringArray(files)) throw new Error(`${RECORDED_SPLIT.pathname}: no "files" list`);
  return files.filter((file) => file.startsWith(`${SWE_AGENT_TRAJECTORIES}/`));
}

export async function sourceFiles(): Promise<string[]> {
  // The upstream folder is listed when ../shared/data has it; a clone without it has the shipped
  // copies of the same files, named by the bundled model's record.
  const swe = sharedDataAvailable(SWE_AGENT_TRAJECTORIES)
    ? (await readdir(sharedDataPath(SWE_AGENT_TRAJECTORIES), { recursive: true }))
        .filter((entry) => entry.endsWith('.traj'))
        .toSorted()
        .map((entry) => `${SWE_AGENT_TRAJECTORIES}/${entry}`)
    : await recordedSweAgentFiles();
  return [...FIXED_FILES, ...swe];
}
