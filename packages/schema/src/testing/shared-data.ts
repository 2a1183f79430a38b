/// <reference types="node" />
/**
 * Where the real trajectories of `../shared/data` live, relative to the repository root. Tests read
 * them there (CI clones the repository beside a copy of `shared/`), so no test names an absolute path.
 */
const SHARED_DATA_ROOT = new URL('../../../../../shared/data/', import.meta.url);

/** Absolute path of a file under ../shared/data, e.g. `sharedDataPath('tau2-bench/results/…json')`. */
export function sharedDataPath(relative = ''): string {
  return decodeURIComponent(new URL(relative, SHARED_DATA_ROOT).pathname).replace(/\/$/, '');
}
