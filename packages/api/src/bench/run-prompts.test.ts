import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgExecutor, openStore, type SqlExecutor, type Store } from '@terrarium/db';
import { postgresForTests, type PostgresForTests } from '@terrarium/db/testing';
import type { BenchRun, JudgeConfig } from '@terrarium/schema';
import type { PromptFolder } from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAU2_RETAIL } from '../testing/sample-files';
import { appRouter } from '../router';
import { PROGRAM_PRINCIPAL, type ApiContext } from '../trpc';
import { importAgentWorldBench } from './bench-files';
import { recomputeItem, startRun, watchRun, type StartRunInput } from './bench-service';
import { startBenchWorkers, type BenchWorkers } from './bench-workers';
import { officialRows, readRealTrajectories } from './official-rows.testkit';
import { readPromptFolder } from './prompt-folder-files';
import { startRecordingEndpoint, type RecordingEndpoint } from './recording-endpoint.testkit';
import { promptFilesHash, promptFilesOf, promptFolderOfFiles } from './run-prompts';
import { openMemoryStore } from '@terrarium/db/test-store';

const FILES = {
  'judge_user_prompt.txt':
    '{context}\n\n{world_model_input}\n\n{predicted_observation}\n\n{ground_truth}\n\nRate it.\n',
  'mcp/judge_system_prompt.txt': 'Judge MCP simulations.\n',
  'mcp/system_prompt.txt': 'Simulate the MCP tools.\n',
};

function writePromptFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'run-prompts-'));
  mkdirSync(join(dir, 'mcp'));
  for (const [file, text] of Object.entries(FILES)) writeFileSync(join(dir, file), text);
  return dir;
}

describe('a prompt folder as files and hash', () => {
  it('round-trips and hashes the same whatever the order the files come in', async () => {
    const dir = writePromptFolder();
    try {
      const folder = await readPromptFolder(dir);
      expect(promptFilesOf(folder)).toEqual(FILES);
      expect(promptFolderOfFiles(promptFilesOf(folder))).toEqual(folder);
      const reversed = Object.fromEntries(Object.entries(FILES).toReversed());
      expect(promptFilesHash(reversed)).toBe(promptFilesHash(FILES));
      expect(promptFilesHash({ ...FILES, 'mcp/system_prompt.txt': 'Other.\n' })).not.toBe(
        promptFilesHash(FILES),
      );
      expect(() => promptFolderOfFiles({ 'notes.txt': 'x' })).toThrow(
        'prompts: notes.txt is not DOMAIN/system_prompt.txt',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A bench run records the prompt folder it was started with; the workers (started here with no
 * folder of their own) speak with it, and a re-run of an item uses it again.
 */
function describeRunPrompts(
  backend: string,
  open: () => Promise<{ store: Store; done(): Promise<void> }>,
) {
  describe(`bench runs record their prompt folder (${backend}, real tau2 retail rows)`, () => {
    let store: Store;
    let done: () => Promise<void>;
    let workers: BenchWorkers;
    let endpoint: RecordingEndpoint;
    let folder: PromptFolder;
    let dir: string;
    let ctx: ApiContext;

    function input(judge: JudgeConfig): StartRunInput {
      return {
        bench: 'awb',
        sims: [`openai:${endpoint.url}#wm`],
        judge,
        mode: { kind: 'open' },
        split: 'test',
      };
    }
    async function runToEnd(run: BenchRun): Promise<BenchRun> {
      let last = run;
      for await (const update of watchRun(ctx, run.id, undefined)) last = update;
      return last;
    }

    beforeAll(async () => {
      ({ store, done } = await open());
      endpoint = await startRecordingEndpoint();
      dir = writePromptFolder();
      folder = await readPromptFolder(dir);
      const rows = officialRows((await readRealTrajectories([TAU2_RETAIL])).slice(0, 1), {
        task: 'mcp',
        firstId: 7,
        systemStr: 'You are a Tool World Model.',
      });
      const imported = await importAgentWorldBench(store, {
        name: 'awb',
        fileName: 'mcp_test.jsonl',
        lines: rows.map((row) => JSON.stringify(row)),
      });
      expect(imported.errors).toEqual([]);
      // The workers have no folder: whatever prompts they use come from the run.
      workers = await startBenchWorkers(store, { concurrency: 1, queue: { schema: 'pgboss' } });
      ctx = { store, benchRunner: workers.runner, principal: PROGRAM_PRINCIPAL };
    }, 180_000);
    afterAll(async () => {
      await workers?.stop();
      await endpoint?.close();
      await done?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('stores hash and texts, speaks with them, and a re-run of an item uses them again', async () => {
      const judge: JudgeConfig = {
        spec: `openai:${endpoint.url}#judge`,
        temperature: 0,
        repeats: 1,
        mode: 'score',
      };
      // Counted before the run starts (its workers may send before startRun's caller reads on).
      const before = endpoint.bodies.length;
      const started = await startRun(ctx, { ...input(judge), prompts: folder });
      const hash = promptFilesHash(FILES);
      expect(started.prompts).toEqual({ hash, files: Object.keys(FILES).toSorted() });
      expect(await store.getBenchRunPromptFiles(started.id)).toEqual(FILES);
      const run = await runToEnd(started);
      expect(run).toMatchObject({ status: 'done', total: 4, done: 4, failed: 0 });
      const sent = endpoint.bodies.slice(before);
      const judged = sent.filter((body) => body.model === 'judge');
      const predicted = sent.filter((body) => body.model === 'wm');
      expect([predicted.length, judged.length]).toEqual([4, 4]);
      // The official protocol: the folder's judge prompt, its sampling.
      expect(new Set(judged.map((body) => body.messages[0]?.content))).toEqual(
        new Set(['Judge MCP simulations.\n']),
      );
      expect(judged.every((body) => body.messages[1]?.content.endsWith('Rate it.'))).toBe(true);
      expect(new Set(predicted.map((body) => `${body.temperature} ${body.max_tokens}`))).toEqual(
        new Set(['0.6 32768']),
      );

      const [item] = (await store.getBenchItems({ name: 'awb' }, { offset: 0, limit: 1 })).rows;
      if (item === undefined) throw new Error('no item');
      const asked = endpoint.bodies.length;
      const again = await recomputeItem(ctx, {
        runId: run.id,
        itemId: item.id,
        sim: input(judge).sims[0] ?? '',
      });
      const rerun = endpoint.bodies.slice(asked);
      expect(rerun.map((body) => body.model)).toEqual(['wm', 'judge']);
      expect(rerun[1]?.messages[0]?.content).toBe('Judge MCP simulations.\n');
      expect(again.recomputed.scores).toEqual(again.stored?.scores);
      expect(again.recomputed.scores['judge:overall']).toBeCloseTo(60, 10);
      // What the re-run spent, one call each, said apart from the run (no price is set).
      expect([again.recomputed.usage, again.recomputed.judgeUsage]).toEqual([
        { inputTokens: 1, outputTokens: 1, costUsd: null },
        { inputTokens: 1, outputTokens: 1, costUsd: null },
      ]);
    }, 120_000);

    it('takes the folder as files through bench.startRun (`bench run --prompts` on a server)', async () => {
      const api = appRouter.createCaller(ctx);
      const sims = ['replay'];
      const run = await api.bench.startRun({ bench: 'awb', sims, prompts: FILES });
      expect(run.prompts).toEqual({
        hash: promptFilesHash(FILES),
        files: Object.keys(FILES).toSorted(),
      });
      expect(await store.getBenchRunPromptFiles(run.id)).toEqual(FILES);
      await runToEnd(run);
      await expect(
        api.bench.startRun({ bench: 'awb', sims, prompts: { 'mcp/notes.txt': 'x' } }),
      ).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('prompts: mcp/notes.txt is not DOMAIN/system_prompt.txt'),
      });
      const none = await api.bench.startRun({ bench: 'awb', sims, prompts: null });
      expect(none.prompts).toBeNull();
      await runToEnd(none);
    }, 120_000);

    it('without --prompts records the server folder, or none', async () => {
      const judge: JudgeConfig = {
        spec: `openai:${endpoint.url}#judge`,
        temperature: 0,
        repeats: 1,
        mode: 'score',
      };
      const serverDefault = await startRun({ ...ctx, prompts: folder }, input(judge));
      expect(serverDefault.prompts?.hash).toBe(promptFilesHash(FILES));
      await runToEnd(serverDefault);
      // Counted before the run starts: its workers may send a judge request before startRun's
      // caller reads on (seen once under load: 3 of the 4 counted).
      const before = endpoint.bodies.length;
      const none = await startRun(ctx, input(judge));
      expect(none.prompts).toBeNull();
      expect(await store.getBenchRunPromptFiles(none.id)).toBeNull();
      const finished = await runToEnd(none);
      const failures = await store.listPredictions(none.id, { offset: 0, limit: 10 });
      expect(failures.rows.map((row) => row.error)).toEqual([null, null, null, null]);
      expect(finished).toMatchObject({ status: 'done', done: 4 });
      const judged = endpoint.bodies.slice(before).filter((body) => body.model === 'judge');
      expect(judged).toHaveLength(4);
      // Terrarium's own judge request: not the folder's.
      expect(judged.some((body) => body.messages[0]?.content === 'Judge MCP simulations.\n')).toBe(
        false,
      );
      expect((await store.listBenchRuns('awb')).map((run) => run.prompts?.hash ?? null)).toEqual([
        null,
        promptFilesHash(FILES),
        null,
        promptFilesHash(FILES),
        promptFilesHash(FILES),
      ]);
    }, 120_000);
  });
}

describeRunPrompts('PGlite', async () => {
  const store = await openMemoryStore();
  return { store, done: () => store.close() };
});

let postgres: PostgresForTests | undefined;
let admin: SqlExecutor | undefined;
const database = `run_prompts_${randomBytes(5).toString('hex')}`;
beforeAll(async () => {
  postgres = await postgresForTests();
  admin = await createPgExecutor(postgres.url);
  await admin.query(`CREATE DATABASE ${database}`);
}, 120_000);
afterAll(async () => {
  await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin?.close();
  await postgres?.stop();
});

describeRunPrompts('PostgreSQL', async () => {
  if (postgres === undefined) throw new Error('no PostgreSQL server (see the beforeAll error)');
  const url = new URL(postgres.url);
  url.pathname = `/${database}`;
  const store = await openStore({ databaseUrl: url.toString() });
  return { store, done: () => store.close() };
});
