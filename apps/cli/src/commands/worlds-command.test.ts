import { rm } from 'node:fs/promises';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startCli, waitForServeUrl } from '../testing/run-cli';
import { seededDataDir } from '@terrarium/db/test-store';

// SWE-agent data is MIT (../shared/data/swe-agent/LICENSE.upstream).
const SWE_AGENT = sharedDataPath('swe-agent');

describe('terrarium worlds build', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await seededDataDir('worlds');
    const imported = await runCli([
      'import',
      SWE_AGENT,
      '--dataset',
      'swe',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  }, 240_000);
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the sufficiency report as JSON and as a table', { timeout: 240_000 }, async () => {
    const json = await runCli([
      'worlds',
      'build',
      '--dataset',
      'swe',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const report: unknown = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      dataset: 'swe',
      worlds: 22,
      skipped: 29,
      transitions: 203,
      exact: 56,
      fallback: 131,
      mismatch: 16,
      byCommand: { cat: { transitions: 3, exact: 3, fallback: 0, mismatch: 0 } },
    });
    const table = await runCli(['worlds', 'build', '--dataset', 'swe', '--data-dir', dataDir]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      'swe: 22 worlds, 203 transitions replayed (29 harness steps left out)',
      'command           transitions  exact  fallback  mismatch  exact of those run',
      '(all)                     203     56       131        16               77.8%',
    ]);
  });

  it(
    'names the datasets there are when the one asked for is not',
    { timeout: 120_000 },
    async () => {
      const missing = await runCli(['worlds', 'build', '--dataset', 'nope', '--data-dir', dataDir]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no dataset "nope" (datasets: swe)');
    },
  );

  it(
    'says why through a running server too, in the server’s own words',
    { timeout: 120_000 },
    async () => {
      const serve = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
      try {
        await waitForServeUrl(serve);
        const missing = await runCli([
          'worlds',
          'build',
          '--dataset',
          'nope',
          '--data-dir',
          dataDir,
        ]);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(
          /could not build worlds \(404\): dataset: no dataset "nope" \(datasets: swe\)\n$/,
        );
      } finally {
        serve.kill('SIGTERM');
      }
      expect(await exitOf(serve)).toBe(0);
    },
  );
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `terrarium worlds build on an InterCode SQL dataset ${UNSHIPPED_DATA_REASON}`,
  () => {
    let dataDir: string;
    beforeAll(async () => {
      dataDir = await seededDataDir('worlds-sql');
      const imported = await runCli([
        'import',
        sharedDataPath('intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json'),
        '--dataset',
        'ic-sql',
        '--json',
        '--data-dir',
        dataDir,
      ]);
      if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
    }, 300_000);
    afterAll(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    it(
      'replays the episodes on the Spider dump and prints the SQL sufficiency',
      { timeout: 300_000 },
      async () => {
        const bare = await runCli([
          'worlds',
          'build',
          '--dataset',
          'ic-sql',
          '--data-dir',
          dataDir,
        ]);
        expect(bare.code).toBe(1);
        expect(bare.stderr).toContain('ic-sql holds SQL episodes: pass --sql-dump FILE');
        const json = await runCli([
          'worlds',
          'build',
          '--dataset',
          'ic-sql',
          '--sql-dump',
          sharedDataPath('intercode/data/sql/spider/ic_spider_dbs.sql'),
          '--sql-tasks',
          sharedDataPath('intercode/data/sql/spider/ic_spider_dev.json'),
          '--json',
          '--data-dir',
          dataDir,
        ]);
        expect(json.stderr).toBe('');
        expect(json.code).toBe(0);
        const report: unknown = JSON.parse(json.stdout);
        // The same figures as the SQL world's own test on the same files (sql-world.intercode.test.ts).
        expect(report).toMatchObject({
          dataset: 'ic-sql',
          worlds: 1034,
          skipped: 33,
          transitions: 5834,
          exact: 4960,
          fallback: 0,
          mismatch: 874,
          byCommand: { SHOW: { transitions: 1083, exact: 1074, fallback: 0, mismatch: 9 } },
        });
      },
    );
  },
);
