import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isObviouslyNotData } from '@terrarium/schema';
import { collectDataFiles, findDataFiles, readDataFile } from './collect-files';
import { sharedDataPath } from '@terrarium/schema/testing';

const SWE_AGENT = sharedDataPath('swe-agent');

describe('collectDataFiles', () => {
  it('lists the shipped swe-agent folder in name order, skipping its licence', async () => {
    const files = await collectDataFiles([SWE_AGENT]);
    expect(files).toHaveLength(22);
    expect(files.filter((file) => file.name.endsWith('.traj'))).toHaveLength(22);
    expect(files[0]?.name).toBe('swe-agent/ctf__crypto__BabyEncryption.traj');
    const sorted = files.map((file) => file.name).toSorted();
    expect(files.map((file) => file.name)).toEqual(sorted);
  });

  it('recurses subfolders in name order, skipping licences, notes and configs', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'terrarium-collect-'));
    const runs = path.join(folder, 'runs');
    await mkdir(path.join(runs, 'b', 'deep'), { recursive: true });
    await mkdir(path.join(runs, 'a'));
    for (const name of [
      'LICENSE',
      'SOURCE.md',
      'a/args.yaml',
      'a/x.traj',
      'b/deep/all_preds.jsonl',
      'b/notes.md',
      '0.json',
    ]) {
      await writeFile(path.join(runs, name), '{}');
    }
    await mkdir(path.join(runs, '.cache'));
    await writeFile(path.join(runs, '.cache', 'y.traj'), '{}');
    const { files, leftOut } = await findDataFiles([runs]);
    expect(files.map((file) => file.name)).toEqual([
      'runs/0.json',
      'runs/a/x.traj',
      'runs/b/deep/all_preds.jsonl',
    ]);
    // What a user is told was left out, in the same order.
    expect(leftOut).toEqual([
      'runs/.cache/',
      'runs/LICENSE',
      'runs/SOURCE.md',
      'runs/a/args.yaml',
      'runs/b/notes.md',
    ]);
  });

  it('keeps a file named explicitly even if it looks like a note', async () => {
    const files = await collectDataFiles([path.join(SWE_AGENT, 'LICENSE')]);
    expect(files.map((file) => file.name)).toEqual(['LICENSE']);
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
