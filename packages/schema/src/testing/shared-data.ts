/// <reference types="node" />
import { existsSync } from 'node:fs';

/**
 * The one resolver for the real data tests read. Tests name files by their path under
 * `../shared/data` (the layout of the original benchmark repositories); a clone without that folder
 * beside it must still pass, so MIT-licensed files resolve to the copies the repository ships:
 * `demo/data/…` (the demo datasets, byte for byte) and `test-data/…` (the few extra files tests
 * need, same layout as ../shared/data). Shipped copies win even when ../shared is present, so every
 * checkout tests the same bytes. Anything else (InterCode: not shippable) is only in ../shared/data.
 */
const REPO_ROOT = new URL('../../../../', import.meta.url);
const SHARED_DATA_ROOT = new URL('../shared/data/', REPO_ROOT);

/** The repository's folder of extra test files, laid out like ../shared/data. */
const TEST_DATA = 'test-data/';

/**
 * How the demo's folders map the upstream layout: tau2 results and the tau-bench v1 airline file
 * moved up one folder; SWE-agent trajectories were flattened with `__` for `/`.
 */
const SHIPPED: readonly { from: string; to: (rest: string) => string }[] = [
  { from: 'tau2-bench/results/', to: (rest) => `demo/data/tau2-bench/${rest}` },
  {
    from: 'tau-bench-v1/historical_trajectories/',
    to: (rest) => `demo/data/tau-bench-airline/${rest}`,
  },
  {
    from: 'swe-agent/trajectories/demonstrations/',
    to: (rest) => `demo/data/swe-agent/${rest.replaceAll('/', '__')}`,
  },
  {
    from: 'swe-agent/tests/test_data/trajectories/',
    to: (rest) => `demo/data/swe-agent/${rest.replaceAll('/', '__')}`,
  },
];

/** Folders that tests list whole (then filter by extension) and their shipped copy. */
const SHIPPED_FOLDERS: Readonly<Record<string, string>> = {
  'swe-agent': 'demo/data/swe-agent',
  'tau2-bench/results': 'demo/data/tau2-bench',
};

function pathOf(url: URL): string {
  return decodeURIComponent(url.pathname).replace(/\/$/, '');
}

/** The shipped copy of a file under ../shared/data, if the repository has one. */
function shippedPath(relative: string): string | null {
  const trimmed = relative.replace(/\/$/, '');
  const candidates: string[] = [];
  const folder = SHIPPED_FOLDERS[trimmed];
  if (folder !== undefined) candidates.push(folder);
  for (const { from, to } of SHIPPED) {
    if (trimmed.startsWith(from) && trimmed.length > from.length) {
      candidates.push(to(trimmed.slice(from.length)));
    }
  }
  candidates.push(`${TEST_DATA}${trimmed}`);
  for (const candidate of candidates) {
    const path = pathOf(new URL(candidate, REPO_ROOT));
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * Absolute path of a real data file named by its place under ../shared/data, e.g.
 * `sharedDataPath('tau2-bench/results/…json')`: the repository's shipped copy when it has one,
 * otherwise the file in ../shared/data. Folders resolve too, but a shipped folder may hold a
 * LICENSE beside the data and a flattened layout: list it and filter by extension.
 */
export function sharedDataPath(relative = ''): string {
  if (relative !== '') {
    const shipped = shippedPath(relative);
    if (shipped !== null) return shipped;
  }
  return pathOf(new URL(relative, SHARED_DATA_ROOT));
}

/**
 * Whether `<folder>` can be read, shipped or in `../shared/data`. Data whose licence keeps it out of
 * the repository (InterCode: task texts from NL2Bash and Spider) is only in ../shared/data; tests
 * on it run `describe.skipIf(!sharedDataAvailable('intercode'))(…)` with the reason in the title.
 */
export function sharedDataAvailable(folder = ''): boolean {
  return existsSync(sharedDataPath(folder));
}

/** The title suffix naming why a suite on unshipped data did not run. */
export const UNSHIPPED_DATA_REASON =
  '(needs ../shared/data: InterCode is not shipped in the repository, its task texts are GPL-3.0 / CC BY-SA)';
