import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectDataFiles, isObviouslyNotData, readDataFile } from './collect-files';
import { sharedDataPath } from '@terrarium/schema/testing';

const SWE_AGENT = sharedDataPath('swe-agent');

describe('collectDataFiles', () => {
  it('recurses a folder in name order, skipping licences, notes and configs', async () => {
    const files = await collectDataFiles([SWE_AGENT]);
    expect(files).toHaveLength(30);
    expect(files.filter((file) => file.name.endsWith('.traj'))).toHaveLength(22);
    expect(files.some((file) => /LICENSE|SOURCE\.md|args\.yaml/.test(file.name))).toBe(false);
    expect(files[0]?.name).toBe(
      'swe-agent/tests/test_data/data_sources/ctf/crypto/Katy/challenge.json',
    );
    const sorted = files.map((file) => file.name).toSorted();
    expect(files.map((file) => file.name)).toEqual(sorted);
  });

  it('keeps a file named explicitly even if it looks like a note', async () => {
    const files = await collectDataFiles([path.join(SWE_AGENT, 'SOURCE.md')]);
    expect(files.map((file) => file.name)).toEqual(['SOURCE.md']);
  });

  it('reads a file lazily and completely', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'terrarium-collect-'));
    await mkdir(path.join(folder, '.hidden'));
    await writeFile(path.join(folder, '.hidden', 'x.jsonl'), '{}\n');
    await writeFile(path.join(folder, 'LICENCE'), 'MIT');
    await writeFile(path.join(folder, 'a.jsonl'), 'x'.repeat(600_000));
    const [file, ...rest] = await collectDataFiles([folder]);
    expect(rest).toEqual([]);
    expect(file?.size).toBe(600_000);
    if (!file) return;
    let bytes = 0;
    for await (const chunk of readDataFile(file).chunks) bytes += chunk.byteLength;
    expect(bytes).toBe(600_000);
  });
});

describe('isObviouslyNotData', () => {
  it('names the non-data files that sit beside trajectories', () => {
    const skipped = [
      'LICENSE',
      'LICENSE.upstream',
      'LICENSE-MIT',
      'COPYING',
      'README.txt',
      'notes.md',
      'args.yaml',
      'x.yml',
      '.DS_Store',
    ];
    const kept = ['gpt-4o-airline.json', 'run.traj', 'all_preds.jsonl', 'license-plates.json'];
    expect(skipped.filter(isObviouslyNotData)).toEqual(skipped);
    expect(kept.filter(isObviouslyNotData)).toEqual([]);
  });
});
