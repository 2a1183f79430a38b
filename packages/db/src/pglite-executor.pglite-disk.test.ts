import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgliteExecutor } from './pglite-executor';
import { textColumn } from './row';

// PGlite takes seconds to start on a busy machine, and a new cluster (initdb) more.
const SLOW = { timeout: 180_000 };

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
      const first = await createPgliteExecutor(dataDir);
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
});
