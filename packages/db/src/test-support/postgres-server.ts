import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = resolve(import.meta.dirname, '../../../../scripts/pg-test-server.sh');
const INITDB = '/usr/lib/postgresql/15/bin/initdb';

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

export interface PostgresForTests {
  url: string;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL server the Postgres suite runs against: TEST_DATABASE_URL when set. Under CI a
 * missing TEST_DATABASE_URL is an error (the suite must never pass by not running); on a
 * developer machine with PostgreSQL 15 installed, a throwaway cluster is started instead.
 */
export async function postgresForTests(
  env: NodeJS.ProcessEnv = process.env,
): Promise<PostgresForTests> {
  const given = env['TEST_DATABASE_URL'];
  if (given) return { url: given, stop: async () => {} };
  if (env['CI']) {
    throw new Error(
      'TEST_DATABASE_URL is not set under CI: the PostgreSQL suite cannot run. ' +
        'Start a server with scripts/pg-test-server.sh start DIR PORT and export its URL.',
    );
  }
  if (!existsSync(INITDB)) {
    throw new Error(
      `TEST_DATABASE_URL is not set and ${INITDB} is missing: apt-get install postgresql`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'terrarium-pg-'));
  const { stdout } = await run('bash', [SCRIPT, 'start', dir, String(await freePort())]);
  return {
    url: stdout.trim().split('\n').pop() ?? '',
    stop: async () => {
      await run('bash', [SCRIPT, 'stop', dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
