import { collectDataFiles, importFiles, readDataFile } from '@terrarium/api';
import { openStore } from '@terrarium/db';
import { seededDataDir } from '@terrarium/db/test-store';
import { DatasetSummary } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli';

const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);

describe('terrarium datasets delete', () => {
  let dataDir: string;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
  beforeAll(async () => {
    dataDir = await seededDataDir('datasets');
    const store = await openStore({ dataDir });
    const paths = await collectDataFiles([TAU2_RETAIL]);
    for (const dataset of ['imported-twice', 'kept']) {
      await importFiles(store, paths.map(readDataFile), { dataset });
    }
    // A curriculum run seeded from `kept` (its tasks are rebuilt from the dataset's data).
    await store.createCurriculumRun({
      dataset: 'kept',
      settings: {
        policy: 'scripted',
        sim: null,
        scheduler: 'lineage',
        probes: 8,
        maxDepth: 15,
        seed: 0,
      },
      generations: 1,
    });
    // A first import into `arriving` waits in the queue: the dataset shows once it is whole.
    await store.createImportJob({
      dataset: 'arriving',
      format: null,
      files: [{ name: 'retail.json', path: TAU2_RETAIL, size: 1 }],
      ownsFiles: false,
    });
    await store.close();
  }, 120_000);

  it('says what would go and deletes nothing without --yes', async () => {
    const asked = await cli('datasets', 'delete', 'imported-twice');
    expect(asked.code).toBe(1);
    expect(asked.stderr).toBe(
      'terrarium: this deletes dataset imported-twice: 40 trajectories with their steps and ' +
        'search index (benches built from it keep their items); add --yes to delete it\n',
    );
    // walk 43: the curriculum runs that rebuild their tasks from it were not mentioned.
    const seeding = await cli('datasets', 'delete', 'kept');
    expect(seeding.stderr).toBe(
      'terrarium: this deletes dataset kept: 40 trajectories with their steps and search index ' +
        '(benches built from it keep their items); curriculum run #1 was seeded from it: it cannot ' +
        'export its tasks until the dataset is imported again under this name; add --yes to delete it\n',
    );
    const unknown = await cli('datasets', 'delete', 'nope', '--yes');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('terrarium: no dataset nope (datasets: imported-twice, kept)\n');
    // walk 40 B8: a dataset being imported read as a name that does not exist.
    const arriving = await cli('datasets', 'delete', 'arriving', '--yes');
    expect([arriving.code, arriving.stderr]).toEqual([
      1,
      'terrarium: dataset arriving is still being imported (0 trajectories stored so far): it appears when the import ends (Ctrl-C where it runs, or Cancel on the Import page, keeps nothing of it)\n',
    ]);
  }, 60_000);

  it('deletes the dataset named, and only it', async () => {
    const deleted = await cli('datasets', 'delete', 'imported-twice', '--yes', '--json');
    expect(deleted.stderr).toBe('');
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: 'imported-twice', trajectories: 40 });
    const listed = await cli('datasets', '--json');
    const datasets = DatasetSummary.array().parse(JSON.parse(listed.stdout));
    expect(datasets.map((dataset) => [dataset.name, dataset.trajectories])).toEqual([['kept', 40]]);
  }, 60_000);
});
