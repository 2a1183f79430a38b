import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acquireDataDir,
  DataDirBusyError,
  isProcessAlive,
  readServerInfo,
  removeServerInfo,
  resolveDataDir,
  writeServerInfo,
} from './data-dir';
import { openStore } from './open-store';
import { spawnStoreChild } from './test-support/child-process';

const folders: string[] = [];
async function freshFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'terrarium-dir-'));
  folders.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has certainly exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((done) => child.on('exit', done));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

describe('resolveDataDir', () => {
  it('prefers the flag, then TERRARIUM_DATA_DIR, then ./.terrarium, always absolute', () => {
    expect(resolveDataDir('/srv/t', { TERRARIUM_DATA_DIR: '/env/t' })).toBe('/srv/t');
    expect(resolveDataDir('rel/dir', {})).toBe(resolve('rel/dir'));
    expect(resolveDataDir(undefined, { TERRARIUM_DATA_DIR: '/env/t' })).toBe('/env/t');
    expect(resolveDataDir('', { TERRARIUM_DATA_DIR: '' })).toBe(resolve('.terrarium'));
    expect(resolveDataDir(undefined, {})).toBe(join(process.cwd(), '.terrarium'));
  });
});

describe('acquireDataDir', () => {
  it('creates the folder, writes our pid, and refuses a second holder in this process', async () => {
    const dir = join(await freshFolder(), 'nested', 'data');
    const lock = await acquireDataDir(dir);
    const content: unknown = JSON.parse(await readFile(join(dir, 'terrarium.lock'), 'utf8'));
    expect(content).toMatchObject({ pid: process.pid });
    const second = acquireDataDir(dir);
    await expect(second).rejects.toBeInstanceOf(DataDirBusyError);
    await expect(second).rejects.toThrow(
      `data folder ${dir} is in use by another Terrarium process (pid ${process.pid})`,
    );
    await lock.release();
    const again = await acquireDataDir(dir);
    await again.release();
  });

  it('makes a new folder 0700, and leaves the mode of an existing one (it may be shared)', async () => {
    const made = join(await freshFolder(), 'new');
    const first = await acquireDataDir(made);
    await first.release();
    expect((await stat(made)).mode & 0o777).toBe(0o700);
    // A shared folder such as /tmp (sticky, world-writable) must never change mode.
    const shared = await freshFolder();
    await chmod(shared, 0o1777);
    const second = await acquireDataDir(shared);
    await second.release();
    expect((await stat(shared)).mode & 0o7777).toBe(0o1777);
  });

  it("fences the store's own folder: pglite is 0700 inside a folder others may enter", async () => {
    const dataDir = await freshFolder();
    await chmod(dataDir, 0o755);
    const store = await openStore({ dataDir });
    await store.close();
    expect((await stat(join(dataDir, 'pglite'))).mode & 0o777).toBe(0o700);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o755);
  }, 60_000);

  it('takes over a lock left by a dead process', async () => {
    const dir = await freshFolder();
    const pid = await deadPid();
    expect(isProcessAlive(pid)).toBe(false);
    await writeFile(
      join(dir, 'terrarium.lock'),
      JSON.stringify({ pid, host: 'gone', since: '2026-01-01' }),
    );
    const lock = await acquireDataDir(dir);
    const content: unknown = JSON.parse(await readFile(join(dir, 'terrarium.lock'), 'utf8'));
    expect(content).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('gives a second process a DataDirBusyError naming the folder and our pid', async () => {
    const dir = await freshFolder();
    const store = await openStore({ dataDir: dir });
    try {
      const child = spawnStoreChild('open-once', { dataDir: dir });
      const line = await child.waitForLine((text) => text.startsWith('{'));
      expect(JSON.parse(line)).toEqual({
        error: {
          name: 'DataDirBusyError',
          message: `data folder ${dir} is in use by another Terrarium process (pid ${process.pid}); stop it, or talk to its server, or use another --data-dir`,
        },
      });
      expect(await child.exited).toBe(0);
    } finally {
      await store.close();
    }
    // Closing released the folder: the next process gets in.
    const child = spawnStoreChild('open-once', { dataDir: dir });
    expect(JSON.parse(await child.waitForLine((text) => text.startsWith('{')))).toEqual({
      ok: true,
    });
  }, 120_000);

  it('refuses us while a live child holds the folder, and takes it over once the child is killed', async () => {
    const dir = await freshFolder();
    const child = spawnStoreChild('hold', { dataDir: dir });
    try {
      await child.waitForLine((line) => line === 'ready');
      await expect(openStore({ dataDir: dir })).rejects.toThrow(`(pid ${child.pid})`);
    } finally {
      await child.kill();
    }
    const store = await openStore({ dataDir: dir });
    expect(await store.listDatasets()).toEqual([]);
    await store.close();
  }, 120_000);
});

describe('server info', () => {
  it('is returned only while its process lives', async () => {
    const dir = await freshFolder();
    expect(await readServerInfo(dir)).toBeNull();
    await writeServerInfo(dir, { url: 'http://127.0.0.1:4321', pid: process.pid });
    expect(await readServerInfo(dir)).toEqual({ url: 'http://127.0.0.1:4321', pid: process.pid });
    await writeServerInfo(dir, { url: 'http://127.0.0.1:4322', pid: await deadPid() });
    expect(await readServerInfo(dir)).toBeNull();
    await writeFile(join(dir, 'server.json'), '{"url": 5');
    expect(await readServerInfo(dir)).toBeNull();
    await removeServerInfo(dir);
    await removeServerInfo(dir);
    expect(await readServerInfo(dir)).toBeNull();
  });
});
