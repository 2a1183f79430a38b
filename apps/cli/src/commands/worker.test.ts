import { randomBytes } from 'node:crypto';
import { createPgExecutor, openStore, type SqlExecutor } from '@terrarium/db';
import {
  buildBenchItem,
  buildBenchManifest,
  postgresForTests,
  type PostgresForTests,
} from '@terrarium/db/testing';
import { createJobQueue, watchRun, type RunProgress } from '@terrarium/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startCli } from '../testing/run-cli';

describe('terrarium worker', () => {
  it('refuses to run on the embedded store, with exit code 2 and the reason', async () => {
    const result = await runCli(['worker']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('`terrarium worker` needs DATABASE_URL=postgres://…');
    expect(result.stderr).toContain('cannot be shared with worker processes');
  }, 60_000);

  describe('on PostgreSQL', () => {
    let server: PostgresForTests | undefined;
    let admin: SqlExecutor | undefined;
    // A database of its own, so the worker's default queue schema meets no other test's jobs.
    const database = `worker_${randomBytes(5).toString('hex')}`;
    let databaseUrl = '';
    beforeAll(async () => {
      server = await postgresForTests();
      admin = await createPgExecutor(server.url);
      await admin.query(`CREATE DATABASE ${database}`);
      const url = new URL(server.url);
      url.pathname = `/${database}`;
      databaseUrl = url.toString();
    }, 120_000);
    afterAll(async () => {
      await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin?.close();
      await server?.stop();
    });

    it('drains a replay run queued by another process, then stops on SIGTERM', async () => {
      const store = await openStore({ databaseUrl });
      const items = Array.from({ length: 5 }, (_, n) => buildBenchItem(n));
      await store.createBench(buildBenchManifest('retail', items), items);
      const queue = await createJobQueue(store);
      const child = startCli(['worker', '--concurrency', '1'], { DATABASE_URL: databaseUrl });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      try {
        const run = await queue.submitBenchRun({
          bench: 'retail',
          sims: ['replay'],
          judge: null,
          mode: { kind: 'open' },
          split: 'test',
        });
        let final: RunProgress | undefined;
        const drained = (async () => {
          for await (const progress of watchRun(store, run.id)) final = progress;
        })();
        // A worker that dies (bad import, bad URL) fails the test at once, with its reason.
        const died = exitOf(child).then((code) => {
          throw new Error(`the worker exited with ${code}: ${stderr}`);
        });
        died.catch(() => {});
        await Promise.race([drained, died]);
        expect(final).toMatchObject({ status: 'done', done: 5, failed: 0, total: 5 });
        const exact = await store.listScores(run.id, {
          source: 'rule',
          metric: 'exact-match',
          offset: 0,
          limit: 10,
        });
        expect(exact.rows.map((score) => score.value)).toEqual([1, 1, 1, 1, 1]);
        child.kill('SIGTERM');
        expect(await exitOf(child)).toBe(0);
        expect(stderr).toContain(`run ${run.id} replay: 5 recorded, 0 failed`);
        expect(stderr).toContain('SIGTERM: finishing in-flight items, then stopping');
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await queue.stop();
        await store.close();
      }
    }, 120_000);
  });
});
