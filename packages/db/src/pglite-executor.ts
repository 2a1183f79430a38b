import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
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

const pgliteModule = createRequire(import.meta.url).resolve('@electric-sql/pglite');

/** PGlite's version: a cluster its initdb made is only copied for the same version. */
function pgliteVersion(): string {
  // The package exports no package.json; it sits one folder above the resolved module.
  const manifest: unknown = JSON.parse(
    readFileSync(join(dirname(pgliteModule), '..', 'package.json'), 'utf8'),
  );
  const version =
    typeof manifest === 'object' && manifest !== null ? Reflect.get(manifest, 'version') : null;
  if (typeof version !== 'string') throw new Error(`${pgliteModule}: no version beside it`);
  return version;
}

/**
 * Where a new cluster is kept to start the next new store from: `TERRARIUM_CLUSTER_CACHE` (a
 * folder; `off` keeps none), else `$XDG_CACHE_HOME/terrarium` or `~/.cache/terrarium`, one cluster
 * per PGlite version. initdb makes the same empty cluster every time, and copying it takes a
 * fraction of a second where initdb takes ~4.7 s, so only a machine's first store pays for it.
 */
export function clusterTemplateDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const setting = env['TERRARIUM_CLUSTER_CACHE'];
  if (setting === 'off') return null;
  const root =
    setting !== undefined && setting !== ''
      ? setting
      : join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'terrarium');
  return join(root, `pglite-${pgliteVersion()}-cluster`);
}

/**
 * Creates a new cluster in `dataDir`: a copy of the cached template (clusterTemplateDir) when
 * there is one, else by initdb in a short-lived child process. PGlite's initdb runs in a
 * WebAssembly instance of its own whose memory Node never hands back: done in this process it left
 * ~500 MB more resident for the rest of the process's life (opening an existing cluster: ~220 MB),
 * which alone broke the import's memory budget. Either way the cluster is written into a sibling
 * folder that is renamed into place when complete, so a kill mid-way never leaves a half-made
 * cluster behind; the template is made the same way, so it is whole or absent.
 */
async function createCluster(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  if (existsSync(dataDir) && (await readdir(dataDir)).length > 0) return; // not ours to touch
  const staging = join(dirname(dataDir), `.${basename(dataDir)}.init-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  try {
    const template = clusterTemplateDir();
    const copied = template !== null && (await copyTemplate(template, staging));
    if (!copied) {
      await execFileAsync(process.execPath, ['-e', INITDB_SCRIPT, staging], {
        env: { ...process.env, TERRARIUM_PGLITE_MODULE: pgliteModule },
      });
      if (template !== null) await keepAsTemplate(staging, template);
    }
    if (existsSync(dataDir)) await rmdir(dataDir);
    await rename(staging, dataDir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Whether the folder holding the template is this user's alone: every new store starts as a copy
 * of the template, so one that others could write to (a shared `TERRARIUM_CLUSTER_CACHE`) would
 * let them plant what every new store holds. Such a cache is neither read nor written.
 */
async function privateCache(template: string): Promise<boolean> {
  try {
    const info = await stat(dirname(template));
    return info.uid === process.getuid?.() && (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Copies the template into `staging`; false (and nothing left) when there is none or it fails. */
async function copyTemplate(template: string, staging: string): Promise<boolean> {
  if (!existsSync(join(template, 'PG_VERSION')) || !(await privateCache(template))) return false;
  try {
    await cp(template, staging, { recursive: true, errorOnExist: true });
    return true;
  } catch {
    await rm(staging, { recursive: true, force: true });
    return false;
  }
}

/**
 * Keeps a fresh cluster as the template, best effort: a cache that cannot be written (a read-only
 * home) or another process that got there first changes nothing but the next store's start time.
 */
async function keepAsTemplate(cluster: string, template: string): Promise<void> {
  const incoming = `${template}.incoming-${process.pid}`;
  try {
    await mkdir(dirname(template), { recursive: true, mode: 0o700 });
    if (!(await privateCache(template))) return;
    await cp(cluster, incoming, { recursive: true });
    await rename(incoming, template);
  } catch {
    // Kept as it was; the copy below is removed whatever happened.
  } finally {
    await rm(incoming, { recursive: true, force: true });
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
  if (dataDir !== undefined) {
    await createCluster(dataDir);
    // The cluster's files are this user's alone, whatever folder holds it: PGlite makes many of
    // them world-writable (pg_control, the WAL, which holds trajectory text).
    await chmod(dataDir, 0o700);
  }
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
