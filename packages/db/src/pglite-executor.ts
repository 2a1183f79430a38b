import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, rename, rm, rmdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Queryable, Row, SqlExecutor } from './executor';

const execFileAsync = promisify(execFile);

/**
 * PGlite's default is 160 MB, all inside this process's WebAssembly memory, and an import touches
 * every page of it: a 32 MB import peaked at 609 MB resident with it and at 500 MB with 16 MB
 * (benchmarks/import-throughput.ts). The operating system's page cache still holds the files, so a
 * page that falls out is a read() away, not a disk seek.
 */
const SHARED_BUFFERS = '16MB';

// Creates the cluster and exits. Run with the folder to create as its one argument.
const INITDB_SCRIPT = `const { PGlite } = require(process.env.TERRARIUM_PGLITE_MODULE);
PGlite.create(process.argv[1]).then((db) => db.close());`;

/**
 * Creates a new cluster in `dataDir` in a short-lived child process. PGlite's initdb runs in a
 * WebAssembly instance of its own whose memory Node never hands back: done in this process it left
 * ~500 MB more resident for the rest of the process's life (opening an existing cluster: ~220 MB),
 * which alone broke the import's memory budget. The child writes into a sibling folder that is
 * renamed into place when complete, so a kill mid-way never leaves a half-made cluster behind.
 */
async function createClusterInChild(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  if (existsSync(dataDir) && (await readdir(dataDir)).length > 0) return; // not ours to touch
  const staging = join(dirname(dataDir), `.${basename(dataDir)}.init-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  try {
    await execFileAsync(process.execPath, ['-e', INITDB_SCRIPT, staging], {
      env: {
        ...process.env,
        TERRARIUM_PGLITE_MODULE: createRequire(import.meta.url).resolve('@electric-sql/pglite'),
      },
    });
    if (existsSync(dataDir)) await rmdir(dataDir);
    await rename(staging, dataDir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function queryableOf(db: PGlite | Transaction): Queryable {
  return {
    async query(sql, params) {
      const result = await db.query<Row>(sql, params ? [...params] : []);
      return result.rows;
    },
    async exec(sql) {
      await db.exec(sql);
    },
    async copyFrom(target, data) {
      // PGlite reads COPY input from a virtual file that holds the blob passed with the query.
      const bytes =
        data.buffer instanceof ArrayBuffer
          ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
          : data.slice();
      await db.query(`COPY ${target} FROM '/dev/blob' WITH (FORMAT binary)`, [], {
        blob: new Blob([bytes]),
      });
    },
  };
}

/** The embedded executor, which can also hand its whole cluster over as a tarball. */
export interface PgliteExecutor extends SqlExecutor {
  /** The cluster as an uncompressed tarball, to start other in-memory executors from. */
  dumpCluster(): Promise<Blob>;
}

/**
 * PGlite on disk in `dataDir`, or in memory when `dataDir` is undefined: a new cluster, or one
 * started from `cluster` (a `dumpCluster()` tarball), which skips initdb.
 */
export async function createPgliteExecutor(
  dataDir: string | undefined,
  cluster?: Blob,
): Promise<PgliteExecutor> {
  if (dataDir !== undefined && cluster !== undefined) {
    throw new Error('a cluster tarball starts in-memory databases only');
  }
  if (dataDir !== undefined) await createClusterInChild(dataDir);
  const db = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    ...(cluster === undefined ? {} : { loadDataDir: cluster }),
  });
  const base = queryableOf(db);
  return {
    backend: 'pglite',
    ...base,
    transaction: (work) => db.transaction((tx) => work(queryableOf(tx))),
    async reserveSession() {
      return { ...base, release: async () => {} };
    },
    async runScript(sql, params) {
      if (params && params.length > 0) return { rows: await base.query(sql, params) };
      try {
        const results = await db.exec(sql);
        return { rows: results.at(-1)?.rows ?? [] };
      } catch (error) {
        // A script that opened its own transaction and failed leaves the one embedded connection in
        // an aborted transaction, which would fail every later query; end it.
        if (/^\s*BEGIN\b/i.test(sql)) await db.exec('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    dumpCluster: () => db.dumpDataDir('none'),
    close: () => db.close(),
  };
}
