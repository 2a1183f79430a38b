import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli';

// SWE-agent data is MIT (../shared/data/swe-agent/LICENSE.upstream).
const SWE_AGENT = sharedDataPath('swe-agent');

describe('terrarium worlds build', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'terrarium-worlds-'));
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
      skipped: 13,
      transitions: 219,
      exact: 15,
      fallback: 187,
      mismatch: 17,
      byCommand: { cat: { transitions: 3, exact: 3, fallback: 0, mismatch: 0 } },
    });
    const table = await runCli(['worlds', 'build', '--dataset', 'swe', '--data-dir', dataDir]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      'swe: 22 worlds, 219 transitions replayed (13 harness steps left out)',
      'command           transitions  exact  fallback  mismatch  exact of run',
      '(all)                     219     15       187        17         46.9%',
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
});
