import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededDataDir } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startCli, waitForServeUrl } from '../testing/run-cli';

/** Resolves when `child` has written `text` to stderr. */
function stderrShows(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes(text)) resolve();
    });
  });
}

describe('terrarium serve on a folder another server holds', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await seededDataDir('serve-held');
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'names the server that serves it, and waits for one on its way out',
    { timeout: 180_000 },
    async () => {
      const first = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
      const url = await waitForServeUrl(first);
      const second = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
      expect(second.code).toBe(1);
      // One line in the user's words: no stack trace, no source paths.
      expect(second.stderr).toBe(
        `terrarium: a Terrarium server already serves ${dataDir} at ${url} (pid ${first.pid}); stop it first, or choose another --data-dir\n`,
      );
      // A holder that no longer answers (stopped here, as one busy shutting down would be) is
      // waited for; once it exits, the new server starts on the folder.
      first.kill('SIGSTOP');
      const third = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
      try {
        await stderrShows(third, `waiting for pid ${first.pid} to let go of ${dataDir}`);
        first.kill('SIGCONT');
        first.kill('SIGTERM');
        expect(await waitForServeUrl(third)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      } finally {
        first.kill('SIGCONT');
        third.kill('SIGTERM');
      }
      expect([await exitOf(first), await exitOf(third)]).toEqual([0, 0]);
    },
  );
});

/** The lines `serve` prints on stdout once it is listening (up to the program token). */
function bannerOf(child: ChildProcess): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (/Program token: .*\n/.test(seen)) resolve(seen.trimEnd().split('\n'));
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

describe('what terrarium serve prints so that people get in', () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });
  async function freshFolder(): Promise<string> {
    const folder = await mkdtemp(join(tmpdir(), 'terrarium-banner-'));
    folders.push(folder);
    return folder;
  }

  it('on loopback: the link that logs its own user in', { timeout: 120_000 }, async () => {
    const dataDir = await freshFolder();
    const child = startCli(['serve', '--port', '0', '--data-dir', dataDir], {
      TERRARIUM_TOKEN: '',
    });
    try {
      const banner = await bannerOf(child);
      const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
      const url = /^Terrarium is running at (\S+)$/.exec(banner[0] ?? '')?.[1] ?? '';
      expect(banner).toEqual([
        `Terrarium is running at ${url}`,
        `Open it in your browser with this link, which logs you in (keep it to yourself): ${url}/?token=${token}`,
        `Data folder: ${dataDir} (the store and the program token)`,
        `Program token: ${token} (send "Authorization: Bearer <token>")`,
      ]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exitOf(child)).toBe(0);
  });

  it(
    'on every address: a loopback URL the CLI reaches, the others, and how to make the first account',
    { timeout: 120_000 },
    async () => {
      const dataDir = await freshFolder();
      const env = { TERRARIUM_TOKEN: 'banner-test-token-0123456789' };
      const args = ['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir];
      const child = startCli(args, env);
      try {
        const banner = await bannerOf(child);
        const url = /^Terrarium is running at (\S+)$/.exec(banner[0] ?? '')?.[1] ?? '';
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const port = new URL(url).port;
        // This machine's IPv4 addresses (0.0.0.0 listens on IPv4 alone), when it has any.
        const others = Object.values(networkInterfaces())
          .flatMap((entries) => entries ?? [])
          .filter((entry) => entry.family === 'IPv4' && !entry.internal)
          .map((entry) => `http://${entry.address}:${port}`);
        expect(banner.slice(1)).toEqual([
          ...(others.length === 0 ? [] : [`Other machines reach it at: ${others.join(', ')}`]),
          'No accounts yet, and here everyone logs in: make the first researcher with `pnpm terrarium users add NAME --role researcher` (TERRARIUM_TOKEN set as for serve)',
          `Data folder: ${dataDir} (the store)`,
          // The user set it: the log, often collected, does not repeat the secret.
          'Program token: the one set in TERRARIUM_TOKEN (send "Authorization: Bearer <token>")',
        ]);
        expect(banner.join('\n')).not.toContain(env.TERRARIUM_TOKEN);
        // The CLI goes through the server it recorded (it named 0.0.0.0, which answered 421).
        const listed = await runCli(['users', 'list', '--json', '--data-dir', dataDir], env);
        expect([listed.code, listed.stdout.trim(), listed.stderr]).toEqual([0, '[]', '']);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exitOf(child)).toBe(0);
    },
  );
});

describe('terrarium serve --allowed-host', () => {
  it('refuses a pattern, which the Host check would compare whole and never match', async () => {
    // walk 41: `--allowed-host '*.wild.test'` was taken as a literal name, without a word.
    const dataDir = await mkdtemp(join(tmpdir(), 'serve-allowed-'));
    try {
      const refused = await runCli([
        'serve',
        '--port',
        '0',
        '--allowed-host',
        'lab.example',
        '--allowed-host',
        '*.wild.test',
        '--data-dir',
        dataDir,
      ]);
      expect([refused.code, refused.stderr]).toEqual([
        1,
        'terrarium: --allowed-host *.wild.test: expected one host name or address, as the Host header carries it without its port (no wildcards: repeat --allowed-host for each name)\n',
      ]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
