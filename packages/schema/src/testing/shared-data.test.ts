import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataAvailable, sharedDataPath } from './shared-data';

const REPO = decodeURIComponent(new URL('../../../../', import.meta.url).pathname);

/** The resolved path relative to the repository root (so no absolute path is asserted). */
function inRepo(path: string): string {
  return path.startsWith(REPO) ? path.slice(REPO.length) : `outside: ${path}`;
}

describe('sharedDataPath', () => {
  it('resolves MIT files named by their ../shared/data path to the copies the repository ships', () => {
    expect(
      [
        'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
        'tau-bench-v1/historical_trajectories/gpt-4o-airline.json',
        'swe-agent/trajectories/demonstrations/ctf/rev/rock.traj',
        'swe-agent/tests/test_data/trajectories/gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/swe-agent__test-repo-i1.traj',
        'tau2-bench/domains/airline/tasks.json',
        'swe-agent',
        'tau2-bench/results',
      ].map((relative) => inRepo(sharedDataPath(relative))),
    ).toEqual([
      'demo/data/tau2-bench/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
      'demo/data/tau-bench-airline/gpt-4o-airline.json',
      'demo/data/swe-agent/ctf__rev__rock.traj',
      'demo/data/swe-agent/gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1__swe-agent__test-repo-i1.traj',
      'test-data/tau2-bench/domains/airline/tasks.json',
      'demo/data/swe-agent',
      'demo/data/tau2-bench',
    ]);
  });

  it('leaves unshipped data (InterCode) in ../shared/data, and says whether it is there', () => {
    const intercode = sharedDataPath('intercode/data/results');
    expect(intercode.endsWith('/shared/data/intercode/data/results')).toBe(true);
    expect(inRepo(intercode).startsWith('outside: ')).toBe(true);
    expect(sharedDataAvailable('intercode')).toBe(existsSync(intercode));
    expect(sharedDataAvailable('tau2-bench/results')).toBe(true);
  });
});
