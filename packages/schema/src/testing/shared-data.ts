/// <reference types="node" />
import { existsSync } from 'node:fs';
/**
 * Where the real trajectories of `../shared/data` live, relative to the repository root. Tests read
 * them there (CI clones the repository beside a copy of `shared/`), so no test names an absolute path.
 */
const SHARED_DATA_ROOT = new URL('../../../../../shared/data/', import.meta.url);

/** Absolute path of a file under ../shared/data, e.g. `sharedDataPath('tau2-bench/results/…json')`. */
export function sharedDataPath(relative = ''): string {
  return decodeURIComponent(new URL(relative, SHARED_DATA_ROOT).pathname).replace(/\/$/, '');
}

/**
 * Whether `../shared/data/<folder>` is beside this clone. Data whose licence keeps it out of the
 * repository (InterCode: task texts from NL2Bash and Spider) is only there; tests on it run
 * `describe.skipIf(!sharedDataAvailable('intercode'))(…)` with the reason in the suite's title.
 */
export function sharedDataAvailable(folder = ''): boolean {
  return existsSync(sharedDataPath(folder));
}

/** The title suffix naming why a suite on unshipped data did not run. */
export const UNSHIPPED_DATA_REASON =
  '(needs ../shared/data: InterCode is not shipped in the repository, its task texts are GPL-3.0 / CC BY-SA)';
