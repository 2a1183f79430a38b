import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@terrarium/db';
import { describe, expect, it } from 'vitest';
import { exitOf, runCli, startCli, waitForServeUrl, type CliResult } from '../testing/run-cli';
import { seededDataDir } from '@terrarium/db/test-store';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const SLOW = { timeout: 120_000 };

/** `terrarium ARGS…` with `stdin` piped in (run-cli's helper gives the child no stdin). */
function runWithStdin(args: string[], stdin: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.DATABASE_URL;
  delete env.TERRARIUM_DATA_DIR;
  delete env.TERRARIUM_TOKEN;
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('terrarium users', () => {
  it('refuses a labeler as the first account of a folder, naming the fix', SLOW, async () => {
    const dataDir = await seededDataDir('users-first');
    // Walk 52: a labeler's account first ended the owner's link, and nobody could manage accounts
    // or open a researcher's page. The folder holds to the rule the page does.
    const labelerFirst = await runWithStdin(
      ['users', 'add', 'lab1', '--role', 'labeler', '--password-stdin', '--data-dir', dataDir],
      'labpass-123456\n',
    );
    expect([labelerFirst.code, labelerFirst.stdout, labelerFirst.stderr]).toEqual([
      1,
      '',
      'terrarium: the first account must be a researcher: once one exists everyone logs in, ' +
        'and a labeler cannot manage accounts; add a researcher first: ' +
        'terrarium users add NAME --role researcher\n',
    ]);
  });

  it('adds, lists and removes accounts in a folder, and through its server', SLOW, async () => {
    const dataDir = await seededDataDir('users');
    const added = await runWithStdin(
      ['users', 'add', 'ada', '--role', 'researcher', '--password-stdin', '--data-dir', dataDir],
      'a long enough password\n',
    );
    expect(added).toMatchObject({ code: 0, stdout: 'Added researcher ada\n' });
    const short = await runWithStdin(
      ['users', 'add', 'bob', '--role', 'labeler', '--data-dir', dataDir],
      'short\n',
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password: at least 8 characters');
    const empty = await runWithStdin(
      ['users', 'add', 'bob', '--role', 'labeler', '--data-dir', dataDir],
      '',
    );
    expect([empty.code, empty.stderr]).toEqual([
      1,
      'terrarium: no password was given on stdin: pipe one in ' +
        `(printf '%s\\n' "$PASSWORD" | terrarium users add bob --role labeler --password-stdin), ` +
        'or run the command on a terminal to be asked for it\n',
    ]);
    // Kept even with --yes: with no researcher left nobody could manage accounts from the UI.
    const last = await runCli(['users', 'remove', 'ada', '--yes', '--data-dir', dataDir]);
    expect([last.code, last.stderr]).toEqual([
      1,
      'terrarium: ada is the last researcher: without one nobody could manage accounts from the UI; ' +
        'add another researcher first\n',
    ]);
    const demoted = await runCli([
      'users',
      'role',
      'ada',
      '--role',
      'labeler',
      '--data-dir',
      dataDir,
    ]);
    expect([demoted.code, demoted.stderr]).toEqual([
      1,
      'terrarium: ada is the last researcher: without one nobody could manage accounts from the UI; ' +
        'make another account a researcher first\n',
    ]);
    const reset = await runWithStdin(
      ['users', 'password', 'ada', '--password-stdin', '--data-dir', dataDir],
      'a new long password\n',
    );
    expect(reset).toMatchObject({
      code: 0,
      stdout: 'Set a new password for ada (and logged out their sessions)\n',
    });
    const nobody = await runWithStdin(
      ['users', 'password', 'nobody', '--password-stdin', '--data-dir', dataDir],
      'a new long password\n',
    );
    expect([nobody.code, nobody.stderr.trim()]).toEqual([1, 'terrarium: no user named nobody']);

    const serve = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      const url = await waitForServeUrl(serve);
      // The server owns the folder now: these go through it, with the folder's token.
      const viaServer = await runWithStdin(
        ['users', 'add', 'lin', '--role', 'labeler', '--data-dir', dataDir],
        'another long password',
      );
      expect(viaServer).toMatchObject({ code: 0, stdout: 'Added labeler lin\n' });
      const duplicate = await runWithStdin(
        ['users', 'add', 'lin', '--role', 'labeler', '--data-dir', dataDir],
        'another long password',
      );
      expect(duplicate.stderr).toContain('a user named lin already exists');
      const login = await fetch(`${url}/trpc/auth.login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ name: 'lin', password: 'another long password' }),
      });
      const answer: unknown = await login.json();
      expect(answer).toMatchObject({
        result: { data: { principal: { kind: 'user', name: 'lin', role: 'labeler' } } },
      });
      // What the page sends beside its cookie (a cookie alone reaches every port of the host).
      const proof = JSON.stringify(answer).match(/"sessionProof":"([\w-]+)"/)?.[1] ?? '';
      // Made a researcher through the server, lin's open session has the role at its next request.
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const makeLin = (role: string) =>
        runCli(['users', 'role', 'lin', '--role', role, '--data-dir', dataDir]);
      const promoted = await makeLin('researcher');
      expect([promoted.code, promoted.stdout]).toEqual([
        0,
        'lin is now a researcher (was a labeler); it applies at their next request\n',
      ]);
      const whoami = await fetch(`${url}/trpc/auth.whoami`, {
        headers: { cookie, 'x-terrarium-session-proof': proof, origin: url },
      });
      expect(await whoami.json()).toMatchObject({
        result: { data: { kind: 'user', name: 'lin', role: 'researcher' } },
      });
      const again = await makeLin('researcher');
      expect(again.stdout).toBe('lin is already a researcher\n');
      expect((await makeLin('labeler')).code).toBe(0);
      const viaServerReset = await runWithStdin(
        ['users', 'password', 'ada', '--password-stdin', '--data-dir', dataDir],
        'the third long password',
      );
      expect(viaServerReset).toMatchObject({ code: 0 });
      const adaLogin = await fetch(`${url}/trpc/auth.login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ name: 'ada', password: 'the third long password' }),
      });
      expect(adaLogin.status).toBe(200);
      const asked = await runCli(['users', 'remove', 'lin', '--data-dir', dataDir]);
      expect([asked.code, asked.stderr]).toEqual([
        1,
        'terrarium: this removes labeler lin and ends their sessions (their labels stay); add --yes to remove it\n',
      ]);
      const listed = await runCli(['users', 'list', '--json', '--data-dir', dataDir]);
      expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'ada' }, { name: 'lin' }]);
      const removed = await runCli(['users', 'remove', 'lin', '--yes', '--data-dir', dataDir]);
      expect(removed).toMatchObject({
        code: 0,
        stdout: 'Removed lin (and logged out their sessions)\n',
      });
    } finally {
      serve.kill('SIGTERM');
    }
    expect(await exitOf(serve)).toBe(0);

    const store = await openStore({ dataDir });
    try {
      const users = await store.listUsers();
      expect(users.map((user) => [user.name, user.role])).toEqual([['ada', 'researcher']]);
      const credentials = await store.getUserCredentials('ada');
      // Only a salted scrypt hash is stored, never the password.
      expect(credentials?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    } finally {
      await store.close();
    }
  });

  it('refuses to serve a non-loopback address without TERRARIUM_TOKEN', SLOW, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'terrarium-wide-'));
    const result = await runCli(
      ['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir],
      {
        TERRARIUM_TOKEN: '',
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to listen on 0.0.0.0 without a token');
  });
});
