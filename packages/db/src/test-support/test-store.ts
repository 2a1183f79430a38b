import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { runMigrations } from '../migrate';
import { MIGRATIONS } from '../migrations';
import { openOnExecutor, PGLITE_SUBDIR } from '../open-store';
import { createPgliteExecutor } from '../pglite-executor';
import type { Store } from '../store';

/*
 * Stores for tests, started from a migrated, empty cluster instead of running initdb and every
 * migration each time: initdb and the migrations are most of what a new store costs (an in-memory
 * one 2.9 s → 0.85 s; a new data folder, where initdb runs in a child process, ~7 s → a copy), and
 * the tests open hundreds. The cluster is made once per machine, schema and PGlite version, kept
 * in the temp folder under a hash of the three, and shared by every test file and later run. Both
 * forms are written under a private name and renamed into place, so a test killed mid-way never
 * leaves half of one for the next.
 */

function clusterName(): string {
  // PGlite's resolved entry point names its version (pnpm's store path holds it).
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const hash = createHash('sha256')
    .update(JSON.stringify({ pglite, migrations: MIGRATIONS }))
    .digest('hex')
    .slice(0, 16);
  return join(tmpdir(), `terrarium-test-cluster-${hash}`);
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}

async function migratedCluster(): Promise<Blob> {
  const path = `${clusterName()}.tar`;
  try {
    return new Blob([await readFile(path)]);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const executor = await createPgliteExecutor(undefined);
  let cluster: Blob;
  try {
    await runMigrations(executor);
    cluster = await executor.dumpCluster();
  } finally {
    await executor.close();
  }
  const staging = `${path}.${process.pid}-${Date.now()}`;
  try {
    await writeFile(staging, new Uint8Array(await cluster.arrayBuffer()));
    await rename(staging, path);
  } finally {
    await rm(staging, { force: true });
  }
  return cluster;
}

let cluster: Promise<Blob> | null = null;

/** The migrated, empty cluster as a tarball (made or read once per test file). */
export function testCluster(): Promise<Blob> {
  cluster ??= migratedCluster();
  return cluster;
}

/**
 * A fresh, empty in-memory store for one test, as `openStore({ memory: true })` opens it (the
 * migrations and the start-up cleanup still run, and find nothing to do).
 */
export async function openMemoryStore(): Promise<Store> {
  return openOnExecutor(await createPgliteExecutor(undefined, await testCluster()));
}

/** The migrated cluster unpacked as a folder, to copy into data folders. */
async function clusterFolder(): Promise<string> {
  const folder = clusterName();
  try {
    await readFile(join(folder, 'PG_VERSION'));
    return folder;
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const staging = await mkdtemp(`${folder}.`);
  try {
    const db = await PGlite.create(join(staging, 'pgdata'), { loadDataDir: await testCluster() });
    await db.close();
    await rename(join(staging, 'pgdata'), folder).catch(async (error: unknown) => {
      // Another test file unpacked it first: theirs is as good.
      await readFile(join(folder, 'PG_VERSION')).catch(() => Promise.reject(error));
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return folder;
}

/**
 * A new data folder (in the temp folder, named after `label`) holding the migrated, empty cluster,
 * as a data folder looks after its first `openStore({ dataDir })`, minus the wait.
 */
export async function seededDataDir(label: string): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), `terrarium-${label}-`));
  await cp(await clusterFolder(), join(dataDir, PGLITE_SUBDIR), { recursive: true });
  return dataDir;
}
