import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterTemplateDir, createPgliteExecutor } from './pglite-executor';
import { textColumn } from './row';

// PGlite takes seconds to start on a busy machine, and a new cluster (initdb) more.
const SLOW = { timeout: 180_000 };

/** Runs `work` with TERRARIUM_CLUSTER_CACHE set to `value`, and puts it back after. */
async function withClusterCache<T>(value: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env['TERRARIUM_CLUSTER_CACHE'];
  process.env['TERRARIUM_CLUSTER_CACHE'] = value;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env['TERRARIUM_CLUSTER_CACHE'];
    else process.env['TERRARIUM_CLUSTER_CACHE'] = previous;
  }
}

/** Every file under `folder` with its size, sorted. */
async function treeOf(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => {
        const path = join(entry.parentPath, entry.name);
        return `${path.slice(folder.length)} ${(await stat(path)).size}`;
      }),
  );
  return files.toSorted();
}

describe('PGlite on disk', () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it(
    'creates a new cluster in a child process, in place only when complete, and keeps data across reopening',
    SLOW,
    async () => {
      const parent = await mkdtemp(join(tmpdir(), 'terrarium-pglite-'));
      folders.push(parent);
      const dataDir = join(parent, 'pglite');
      const first = await withClusterCache('off', () => createPgliteExecutor(dataDir));
      try {
        expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
        // The staging folder the child wrote into was renamed, not left beside it.
        expect(await readdir(parent)).toEqual(['pglite']);
        const [setting] = await first.query('SHOW shared_buffers');
        expect(setting && textColumn(setting, 'shared_buffers')).toBe('16MB');
        await first.exec('CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$across$$)');
      } finally {
        await first.close();
      }
      const second = await createPgliteExecutor(dataDir);
      try {
        expect(await second.query('SELECT v FROM kept')).toEqual([{ v: 'across' }]);
      } finally {
        await second.close();
      }
    },
  );

  it(
    "starts a machine's later clusters from a copy of its first, and keeps none when the cache is off",
    SLOW,
    async () => {
      const parent = await mkdtemp(join(tmpdir(), 'terrarium-pglite-template-'));
      folders.push(parent);
      await withClusterCache('off', async () => {
        expect(clusterTemplateDir()).toBeNull();
        await (await createPgliteExecutor(join(parent, 'uncached'))).close();
      });
      expect(await readdir(parent)).toEqual(['uncached']);

      const cache = join(parent, 'cache');
      await withClusterCache(cache, async () => {
        const template = clusterTemplateDir();
        expect(template).toMatch(/\/cache\/pglite-\d+\.\d+\.\d+-cluster$/);
        if (template === null) throw new Error('no template folder');
        await (await createPgliteExecutor(join(parent, 'first'))).close();
        expect(existsSync(join(template, 'PG_VERSION'))).toBe(true);
        // Nothing half-copied beside it.
        expect(await readdir(cache)).toEqual([template.slice(cache.length + 1)]);

        // A file only the template has shows that the next cluster is its copy, not initdb's.
        await writeFile(join(template, 'copied-from-template'), 'yes');
        const templateBefore = await treeOf(template);
        const second = await createPgliteExecutor(join(parent, 'second'));
        try {
          expect(await readFile(join(parent, 'second', 'copied-from-template'), 'utf8')).toBe(
            'yes',
          );
          await second.exec('CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$copied$$)');
          expect(await second.query('SELECT v FROM kept')).toEqual([{ v: 'copied' }]);
        } finally {
          await second.close();
        }
        // The new store wrote into its copy only: the template is as it was.
        expect(await treeOf(template)).toEqual(templateBefore);

        // A cache others may write to could hand every new store what they planted: unused.
        await chmod(cache, 0o777);
        await (await createPgliteExecutor(join(parent, 'third'))).close();
        expect(existsSync(join(parent, 'third', 'PG_VERSION'))).toBe(true);
        expect(existsSync(join(parent, 'third', 'copied-from-template'))).toBe(false);
      });
    },
  );
});
