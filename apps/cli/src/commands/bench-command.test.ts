import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { sharedDataPath } from '@terrarium/schema/testing';
import { BenchRun, LeaderboardCell, RunResult } from '@terrarium/schema';
import { serveTerrarium } from '@terrarium/server';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { expectOneLineFailure } from '../testing/cli-failure';
import { exitOf, runCli, startCli } from '../testing/run-cli';
import { appRouter, PROGRAM_PRINCIPAL, type SimReport } from '@terrarium/api';
import { openStore } from '@terrarium/db';
import {
  judgeProgress,
  judgeProgressEnd,
  leaderboardTable,
  progressLines,
  reportTable,
  runsTable,
} from './bench-command';
import { seededDataDir } from '@terrarium/db/test-store';
import { closedPort, startRecordingEndpoint } from '@terrarium/api/testing';

const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
const SLOW = { timeout: 240_000 };
// Measured on tau2 retail (40 trajectories, agentworld sampling).
const RETAIL_ITEMS = 194;

/** What every table prints under itself when replay is among its simulators. */
const ORACLE_NOTE =
  'note: replay: Oracle: replay answers with the recorded observation itself, so it scores ~100 by construction. An upper bound, not a model.';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The one JSON object a `--json` command prints. */
function parseJson(stdout: string): Record<string, unknown> {
  const value: unknown = JSON.parse(stdout);
  if (!isRecord(value)) throw new Error(`expected a JSON object: ${stdout.slice(0, 200)}`);
  return value;
}

function simsOf(output: Record<string, unknown>): Record<string, unknown>[] {
  const sims = output['sims'];
  if (!Array.isArray(sims)) throw new Error('no sims');
  return sims.filter(isRecord);
}

describe('terrarium bench', () => {
  let dataDir: string;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  let built: Record<string, unknown>;
  beforeAll(async () => {
    dataDir = await seededDataDir('bench');
    const imported = await cli('import', TAU2_RETAIL, '--dataset', 'retail', '--json');
    if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
    const build = await cli('bench', 'build', '--name', 'r', '--dataset', 'retail', '--json');
    if (build.code !== 0) throw new Error(`bench build failed: ${build.stderr}`);
    built = parseJson(build.stdout);
    // Two CLI processes (import, build) on a shared 2-core machine: measured ~50 s alone.
  }, 240_000);

  it('builds a bench and prints its manifest', () => {
    expect(built).toMatchObject({
      name: 'r',
      version: 1,
      sampling: { kind: 'agentworld' },
      seed: 0,
      sources: ['retail'],
      devFraction: 0,
      itemCount: RETAIL_ITEMS,
      duplicatesDropped: 0,
      byTask: { 'tau2-bench/retail': RETAIL_ITEMS },
    });
  });

  it('runs replay and retrieval and prints the scores as JSON', SLOW, async () => {
    const run = await cli(
      'bench',
      'run',
      '--bench',
      'r',
      '--sim',
      'replay',
      '--sim',
      'retrieval',
      '--json',
    );
    expect(run.code).toBe(0);
    // Not a terminal: progress as plain lines on stderr, the last one at the end of the run.
    const progress = run.stderr.trimEnd().split('\n');
    for (const line of progress) {
      expect(line).toMatch(/^run \d+: \d+\/388 units \(\d+%\), 0 failed, (queued|running|done)$/);
    }
    expect(progress.at(-1)).toMatch(/^run \d+: 388\/388 units \(100%\), 0 failed, done$/);
    const output = parseJson(run.stdout);
    expect(Object.keys(output)).toEqual([
      'bench',
      'run',
      'status',
      'sims',
      'judgeGaps',
      'judgeSides',
      'usage',
      'judgeUsage',
    ]);
    expect([output['judgeGaps'], output['judgeSides']]).toEqual([[], null]);
    // Replay and retrieval are local: free, and no judge was asked.
    expect(output['usage']).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(output['judgeUsage']).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(output['bench']).toBe('r');
    expect(output['status']).toBe('done');
    const [replay, retrieval] = simsOf(output);
    expect(Object.keys(replay ?? {})).toEqual([
      'sim',
      'oracle',
      'items',
      'overall',
      'overallMetric',
      'byDomain',
      'byTask',
      'byMetric',
      'failed',
    ]);
    expect(replay).toMatchObject({
      sim: 'replay',
      oracle: true,
      items: RETAIL_ITEMS,
      overall: 100,
      overallMetric: 'rule:content',
      byDomain: { tool: 100 },
      byTask: { 'tau2-bench/retail': 100 },
      failed: 0,
    });
    expect(isRecord(replay?.['byMetric']) && replay['byMetric']['rule:exact-match']).toBe(100);
    expect(retrieval).toMatchObject({
      sim: 'retrieval',
      oracle: false,
      items: RETAIL_ITEMS,
      failed: 0,
    });
    const overall = retrieval?.['overall'];
    // 46.5 before retrieval preferred recorded calls with the same arguments; 49.8 while a tool
    // only the item's own trajectory calls gave a miss; 50.0 while a flipped boolean or another
    // status scored as content of the same form (the same run as bench-service.test.ts).
    expect(typeof overall === 'number' && Math.round(overall * 10) / 10).toBe(49.6);
  });

  it('lists the run and writes its results, a line per item and simulator', SLOW, async () => {
    const listed = await cli('bench', 'runs', '--bench', 'r', '--json');
    expect(listed.code).toBe(0);
    const runs = BenchRun.array().parse(JSON.parse(listed.stdout));
    expect(runs.map((run) => [run.status, run.sims])).toEqual([['done', ['replay', 'retrieval']]]);
    const runId = runs[0]?.id ?? '';
    const table = await cli('bench', 'runs');
    expect(table.stdout).toMatch(
      new RegExp(
        `^run ${runId}  r v1 test  done 388/388  replay \\(oracle\\), retrieval  \\S+\\n$`,
      ),
    );

    const out = path.join(dataDir, 'results.jsonl');
    const written = await cli('bench', 'results', runId, '--out', out, '--json');
    expect(written.stderr).toBe('');
    expect(parseJson(written.stdout)).toEqual({ run: runId, out, units: RETAIL_ITEMS * 2 });
    const rows = (await readFile(out, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => RunResult.parse(JSON.parse(line)));
    const retrieval = rows.filter((row) => row.sim === 'retrieval');
    expect(retrieval).toHaveLength(RETAIL_ITEMS);
    // Its mean is the 49.6 that `bench run` printed for retrieval.
    const content = retrieval.reduce((sum, row) => sum + (row.scores['rule:content'] ?? 0), 0);
    expect(Math.round((content / RETAIL_ITEMS) * 1000) / 10).toBe(49.6);

    // The leaderboard with its intervals, the run page's cells: retrieval's Overall is the 49.6.
    const board = await cli('bench', 'leaderboard', runId, '--json');
    expect(board.stderr).toBe('');
    const parsed = parseJson(board.stdout);
    expect(parsed).toMatchObject({ run: runId, score: 'rule:content', intervals: 'ready' });
    const rawCells = parsed['cells'];
    expect(
      Array.isArray(rawCells) &&
        rawCells.filter(isRecord).map((cell) => `${String(cell['sim'])} ${String(cell['oracle'])}`),
    ).toEqual([
      'replay true',
      'replay true',
      'replay true',
      'retrieval false',
      'retrieval false',
      'retrieval false',
    ]);
    const cells = LeaderboardCell.array().parse(rawCells);
    expect(cells.map((cell) => `${cell.sim} ${cell.task}`)).toEqual([
      'replay overall',
      'replay macro',
      'replay tau2-bench/retail',
      'retrieval overall',
      'retrieval macro',
      'retrieval tau2-bench/retail',
    ]);
    const overall = cells.find((cell) => cell.sim === 'retrieval' && cell.task === 'overall');
    expect(overall).toMatchObject({ n: RETAIL_ITEMS, missing: 0 });
    expect(Math.round((overall?.mean ?? 0) * 10) / 10).toBe(49.6);
    expect(overall?.ciLow ?? 100).toBeLessThan(overall?.mean ?? 0);
    expect(overall?.ciHigh ?? 0).toBeGreaterThan(overall?.mean ?? 100);

    const unknown = path.join(dataDir, 'unknown-run.jsonl');
    const refused = await cli('bench', 'results', '999999', '--out', unknown);
    expect(refused.code).toBe(1);
    // The run is the command's argument: no API field name before the reason.
    expect(refused.stderr).toBe('terrarium: no bench run 999999\n');
    await expect(stat(unknown)).rejects.toThrow(/ENOENT/);
  });

  it('exports AgentWorldBench JSONL and imports it back as another bench', SLOW, async () => {
    const out = path.join(dataDir, 'r.jsonl');
    const exported = await cli(
      'bench',
      'export',
      '--name',
      'r',
      '--format',
      'agentworldbench',
      '--out',
      out,
      '--json',
    );
    expect(exported.code).toBe(0);
    expect(parseJson(exported.stdout)).toEqual({
      bench: 'r',
      format: 'agentworldbench',
      out,
      items: RETAIL_ITEMS,
    });
    expect((await readFile(out, 'utf8')).split('\n')).toHaveLength(RETAIL_ITEMS + 1);
    const imported = await cli('bench', 'import', out, '--name', 'copy', '--json');
    expect(imported.code).toBe(0);
    const result = parseJson(imported.stdout);
    expect(result['errors']).toEqual([]);
    expect(result['manifest']).toMatchObject({
      name: 'copy',
      version: 1,
      sources: ['r.jsonl'],
      itemCount: RETAIL_ITEMS,
    });
  });

  it('creates the missing folders of --out, and refuses a folder in one line', SLOW, async () => {
    const listed = await cli('bench', 'runs', '--bench', 'r', '--json');
    const runId = BenchRun.array().parse(JSON.parse(listed.stdout))[0]?.id ?? '';
    const nested = path.join(dataDir, 'not', 'yet', 'results.jsonl');
    const written = await cli('bench', 'results', runId, '--out', nested);
    expect([written.code, written.stderr]).toEqual([0, '']);
    expect((await readFile(nested, 'utf8')).trimEnd().split('\n')).toHaveLength(RETAIL_ITEMS * 2);
    expect(await readdir(path.dirname(nested))).toEqual(['results.jsonl']);
    const sft = path.join(dataDir, 'sft', 'new', 'train.jsonl');
    const trained = await cli(
      'bench',
      'export',
      '--name',
      'r',
      '--format',
      'sft',
      '--dataset',
      'retail',
      '--out',
      sft,
    );
    expect([trained.code, trained.stderr]).toEqual([0, '']);
    expect(await readdir(path.dirname(sft))).toEqual(['train.jsonl']);

    const folder = path.join(dataDir, 'a-folder');
    await mkdir(folder);
    const results = await cli('bench', 'results', runId, '--out', folder);
    expectOneLineFailure(results, `cannot write ${folder}: it is a folder, not a file`);
    const exported = await cli('bench', 'export', '--name', 'r', '--out', `${folder}/`);
    expectOneLineFailure(exported, `cannot write ${folder}/: it is a folder, not a file`);
    const file = path.join(dataDir, 'results.jsonl');
    const underFile = await cli('bench', 'results', runId, '--out', path.join(file, 'x.jsonl'));
    expectOneLineFailure(
      underFile,
      `cannot write ${path.join(file, 'x.jsonl')}: a file is where a folder is needed`,
    );
    expect(await readdir(folder)).toEqual([]);
  });

  it('names a bad --sampling and exits 1', SLOW, async () => {
    const bad = await cli(
      'bench',
      'build',
      '--name',
      'x',
      '--dataset',
      'retail',
      '--sampling',
      'x',
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe('terrarium: --sampling x: expected agentworld, all or random:N\n');
  });

  it('names the judge option that is out of range, and starts no run', SLOW, async () => {
    const before = (await cli('bench', 'runs', '--json')).stdout;
    const judge = ['bench', 'run', '--bench', 'r', '--sim', 'replay', '--judge'];
    const spec = 'openai:http://127.0.0.1:8000/v1#judge';
    const repeats = await cli(...judge, spec, '--judge-repeats', '11');
    expect([repeats.code, repeats.stderr]).toEqual([
      1,
      'terrarium: --judge-repeats 11: expected 1 to 10 judgings per item\n',
    ]);
    const hot = await cli(...judge, spec, '--judge-temperature', '2.5');
    expect([hot.code, hot.stderr]).toEqual([
      1,
      'terrarium: --judge-temperature 2.5: expected 0 to 2\n',
    ]);
    const notSpec = await cli(...judge, 'judge-model');
    expect(notSpec.stderr).toBe('terrarium: --judge judge-model: expected openai:URL#MODEL\n');
    expect((await cli('bench', 'runs', '--json')).stdout).toBe(before);
  });

  it('asks for --dataset when exporting SFT data', SLOW, async () => {
    const out = path.join(dataDir, 'sft.jsonl');
    const sft = await cli('bench', 'export', '--name', 'r', '--format', 'sft', '--out', out);
    expect(sft.code).toBe(1);
    expect(sft.stderr).toBe(
      'terrarium: --format sft needs --dataset NAME (the datasets to draw training data from)\n',
    );
  });

  it('names an unknown bench, and writes no file for it', SLOW, async () => {
    const out = path.join(dataDir, 'nope.jsonl');
    const exported = await cli('bench', 'export', '--name', 'nope', '--out', out);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toBe('terrarium: no bench "nope" (benches: copy, r)\n');
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
    const missing = await cli('bench', 'run', '--bench', 'nope', '--sim', 'replay', '--json');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe('terrarium: no bench "nope" (benches: copy, r)\n');
    // An unknown dataset is named by its flag, in one line (it printed a stack trace).
    const unknownDataset = await cli('bench', 'build', '--name', 'z', '--dataset', 'nope');
    expect(unknownDataset.code).toBe(1);
    expect(unknownDataset.stderr).toBe(
      'terrarium: --dataset: no dataset "nope" (datasets: retail)\n',
    );
    // Said before anything is asked, as the start form says it: k greedy judgings cost k times one.
    const judge = ['--judge', 'openai:http://127.0.0.1:8000/v1#judge', '--judge-repeats', '3'];
    const same = await cli('bench', 'run', '--bench', 'nope', '--sim', 'replay', ...judge);
    expect(same.stderr).toBe(
      'note: 3 judgings at temperature 0 send the judge the same prompt 3 times: a server that decodes greedily answers alike, so the spread reads 0 at 3 times the cost; raise the temperature for judgings that can differ\n' +
        'terrarium: no bench "nope" (benches: copy, r)\n',
    );
  });

  it(
    'prints the run page’s columns under `bench run`: overall, macro and each task',
    SLOW,
    async () => {
      const run = await cli(
        'bench',
        'run',
        '--bench',
        'r',
        '--sim',
        'replay',
        '--sim',
        'retrieval',
      );
      expect([run.code, run.stderr.includes('terrarium:')]).toEqual([0, false]);
      const runId = /run (\d+) \(done\)/.exec(run.stdout)?.[1] ?? '';
      // Before, the columns were the items' domains (`overall  tool`), which the page never shows.
      expect(run.stdout).toBe(
        [
          `bench r v1, run ${runId} (done); overall = rule:content, 0-100`,
          'sim              items  overall  macro  tau2-bench/retail  failed',
          'replay (oracle)    194    100.0  100.0              100.0       0',
          'retrieval          194     49.6   49.6               49.6       0',
          ORACLE_NOTE,
          'cost: simulators 0 in / 0 out tokens · $0.00',
          '',
        ].join('\n'),
      );
      // The same cells as `bench leaderboard`, the run page's.
      const board = parseJson((await cli('bench', 'leaderboard', runId, '--json')).stdout);
      const cells = LeaderboardCell.array().parse(board['cells']);
      expect(
        cells.map((cell) => `${cell.sim} ${cell.task} ${(cell.mean ?? 0).toFixed(1)} ${cell.n}`),
      ).toEqual([
        'replay overall 100.0 194',
        'replay macro 100.0 194',
        'replay tau2-bench/retail 100.0 194',
        'retrieval overall 49.6 194',
        'retrieval macro 49.6 194',
        'retrieval tau2-bench/retail 49.6 194',
      ]);
    },
  );

  it(
    'deletes a run and a bench version only with --yes, saying first what would go',
    SLOW,
    async () => {
      const runs = BenchRun.array().parse(
        JSON.parse((await cli('bench', 'runs', '--json')).stdout),
      );
      const runId = runs.find((run) => run.bench === 'r')?.id ?? '';
      // Walk 52: with labeling queues on the run the dry run said "add --yes", and --yes was
      // refused. Through the folder's server first, then through the folder.
      const served = await serveTerrarium({ dataDir, port: 0, env: {} });
      const queueIds: string[] = [];
      try {
        const program = appRouter.createCaller({
          store: served.store,
          principal: PROGRAM_PRINCIPAL,
        });
        for (const name of ['spot check', 'second look']) {
          const queue = await program.labels.createQueue({
            name,
            runId,
            sim: 'retrieval',
            selection: { kind: 'random', count: 2, seed: 1 },
            ruleSet: { name: 'default-tool' },
          });
          queueIds.push(queue.id);
        }
        const held = await cli('bench', 'delete-run', runId);
        expect([held.code, held.stderr]).toEqual([
          1,
          `terrarium: run ${runId} of bench r v1 cannot be deleted, even with --yes: labeling queues ` +
            `"second look" (0 labels) and "spot check" (0 labels) hold people's labels on it; ` +
            'delete the queues first (Labeling page) if they are no longer needed\n',
        ]);
        await served.store.deleteLabelQueue(queueIds[1] ?? '');
      } finally {
        await served.close();
      }
      const heldByOne = await cli('bench', 'delete-run', runId, '--yes');
      expect([heldByOne.code, heldByOne.stderr]).toEqual([
        1,
        `terrarium: run ${runId} of bench r v1 cannot be deleted: labeling queue "spot check" ` +
          "(0 labels) holds people's labels on it; delete the queue first (Labeling page) if they " +
          'are no longer needed\n',
      ]);
      const store = await openStore({ dataDir });
      try {
        expect(await store.deleteLabelQueue(queueIds[0] ?? '')).toBe(true);
      } finally {
        await store.close();
      }
      const asked = await cli('bench', 'delete-run', runId);
      expect(asked.code).toBe(1);
      expect(asked.stderr).toBe(
        `terrarium: this deletes run ${runId} of bench r v1: 388 units with their predictions and scores; add --yes to delete it\n`,
      );
      const deleted = await cli('bench', 'delete-run', runId, '--yes', '--json');
      expect(deleted.stderr).toBe('');
      expect(parseJson(deleted.stdout)).toEqual({
        deleted: runId,
        bench: 'r',
        benchVersion: 1,
        units: RETAIL_ITEMS * 2,
      });
      const bench = await cli('bench', 'delete', '--name', 'copy', '--bench-version', '1', '--yes');
      expect(bench.stderr).toBe('');
      expect(bench.stdout).toBe('deleted bench copy v1 (194 items, 0 runs)\n');
    },
  );

  it('retries the failed units of a run once its endpoint is up', SLOW, async () => {
    // The run is started before the world model's server: every unit fails.
    const port = await closedPort();
    const sim = `openai:http://127.0.0.1:${port}/v1#wm`;
    const down = await cli('bench', 'run', '--bench', 'r', '--sim', sim);
    expect(down.code).toBe(0);
    const runId = /run (\d+) \(done\)/.exec(down.stdout)?.[1] ?? '';
    expect(down.stdout).toContain(
      `note: 194 units failed and are left out of the scores; "terrarium bench results ${runId}" gives each error, "terrarium bench retry ${runId}" predicts them again\n`,
    );
    const endpoint = await startRecordingEndpoint({ port });
    try {
      const retried = await cli('bench', 'retry', runId, '--json');
      expect(retried.stderr).not.toContain('terrarium:');
      expect(retried.code).toBe(0);
      const output = parseJson(retried.stdout);
      expect(output).toMatchObject({ run: runId, status: 'done' });
      expect(simsOf(output)).toEqual([
        expect.objectContaining({ sim, items: RETAIL_ITEMS, failed: 0 }),
      ]);
      // Each failed unit was asked for once more, and only those.
      expect(endpoint.bodies.length).toBe(RETAIL_ITEMS);
    } finally {
      await endpoint.close();
    }
  });

  it(
    'with a judge that was down, tables the content score, asks again, and says when it still gives none',
    SLOW,
    async () => {
      const port = await closedPort();
      const judge = `openai:http://127.0.0.1:${port}/v1#judge`;
      const run = await cli('bench', 'run', '--bench', 'r', '--sim', 'replay', '--judge', judge);
      expect(run.code).toBe(0);
      const runId = /run (\d+) \(done\)/.exec(run.stdout)?.[1] ?? '';
      // No verdict at all: the table shows the rule scores every item has, as the run page does.
      expect(run.stdout.split('\n').slice(0, 3)).toEqual([
        `bench r v1, run ${runId} (done); overall = rule:content (judge:overall has no verdict), 0-100`,
        'sim              items  overall  macro  tau2-bench/retail  failed',
        'replay (oracle)    194    100.0  100.0              100.0       0',
      ]);
      expect(run.stdout).toContain(
        `note: replay: the judge gave no verdict on 194 of 194 items (judge:overall), whose judge scores are missing ("terrarium bench retry ${runId}" asks again)`,
      );
      // `bench leaderboard` opens on the same score, not on the judge's empty cells.
      const board = await cli('bench', 'leaderboard', runId, '--json');
      expect(parseJson(board.stdout)).toMatchObject({ score: 'rule:content' });
      // Still down: the retry says so and fails, rather than printing the same table as a success.
      const still = await cli('bench', 'retry', runId);
      expect(still.code).toBe(1);
      // It said what it asked for, and how many came back, around the request that asked.
      expect(still.stderr).toContain(`run ${runId}: asking the judge again for 194 verdicts\n`);
      expect(still.stderr).toContain(
        `run ${runId}: the judge gave 0 of the 194 verdicts asked for\nterrarium: run ${runId}: asked again`,
      );
      expect(still.stderr).toMatch(
        new RegExp(
          `^terrarium: run ${runId}: asked again, verdicts are still missing \\(replay judge:overall 194 of 194\\); first error: \\(judge request failed: `,
          'm',
        ),
      );
      const endpoint = await startRecordingEndpoint({ port });
      try {
        const retried = await cli('bench', 'retry', runId, '--json');
        expect(retried.stderr).not.toContain('terrarium:');
        expect(retried.stderr).toMatch(
          new RegExp(
            `^run ${runId}: asking the judge again for 194 verdicts\\n(.*\\n)*run ${runId}: the judge gave 194 of the 194 verdicts asked for\\n$`,
          ),
        );
        expect(retried.code).toBe(0);
        const output = parseJson(retried.stdout);
        expect(output).toMatchObject({
          run: runId,
          status: 'done',
          judgeGaps: [],
          sims: [{ sim: 'replay', items: 194, overallMetric: 'judge:overall' }],
        });
        // The predictions stayed: only the judge was asked, once per item.
        expect(endpoint.bodies.map((body) => body.model)).toEqual(
          Array.from({ length: RETAIL_ITEMS }, () => 'judge'),
        );
        // Nothing goes on in the run any more: neither the run nor its judge to stop.
        const cancel = await cli('bench', 'cancel', runId);
        expect([cancel.code, cancel.stdout]).toEqual([
          0,
          `run ${runId} was already done; nothing to cancel\n`,
        ]);
      } finally {
        await endpoint.close();
      }
    },
  );

  /** `bench run` of a held endpoint, interrupted by Ctrl-C once it has asked for a prediction. */
  async function interruptedRun(
    endpointUrl: string,
    asked: () => number,
  ): Promise<{ code: number | null; runId: string; stdout: string; stderr: string }> {
    const child = startCli([
      'bench',
      'run',
      '--bench',
      'r',
      '--sim',
      `openai:${endpointUrl}#wm`,
      '--data-dir',
      dataDir,
    ]);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await vi.waitFor(() => expect(asked()).toBeGreaterThan(0), { timeout: 60_000 });
    await vi.waitFor(() => expect(stderr).toMatch(/^run \d+: 0\/194 units/), { timeout: 10_000 });
    child.kill('SIGINT');
    const code = await exitOf(child);
    return { code, runId: /^run (\d+):/.exec(stderr)?.[1] ?? '', stdout, stderr };
  }

  it('cancels a run it runs itself on Ctrl-C, and says how to take it up', SLOW, async () => {
    // Every prediction is held: the run is going when the user presses Ctrl-C.
    const held = await startRecordingEndpoint({ holdAfter: 0 });
    try {
      const { code, runId, stdout, stderr } = await interruptedRun(
        held.url,
        () => held.bodies.length,
      );
      // Before, the process died mid-unit and left the run `running` in the folder.
      expect(stderr.split('\n').slice(1)).toEqual([
        `terrarium: run ${runId} canceled (0 of 194 units recorded); "terrarium bench resume ${runId}" takes it up again`,
        `terrarium: run ${runId} ended canceled (0 of 194 units recorded)`,
        '',
      ]);
      expect(code).toBe(1);
      expect(stdout).toContain(`run ${runId} (canceled)`);
      // Nothing scored: no cell of the run page, so the overall and macro columns say so.
      const sim = `openai:${held.url}#wm`;
      expect(stdout.split('\n').slice(1, 3)).toEqual([
        `sim${' '.repeat(sim.length - 3)}  items  overall  macro  failed`,
        `${sim}      0        -      -       0`,
      ]);
      const runs = await cli('bench', 'runs', '--json');
      expect(
        BenchRun.array()
          .parse(JSON.parse(runs.stdout))
          .find((run) => run.id === runId)?.status,
      ).toBe('canceled');
    } finally {
      held.release();
      await held.close();
    }
  });

  it('leaves a run to the server on Ctrl-C, and says how to stop it', SLOW, async () => {
    const held = await startRecordingEndpoint({ holdAfter: 0 });
    // The folder's own server: the CLI goes through it, and its workers run the bench.
    const served = await serveTerrarium({ dataDir, port: 0, env: {} });
    try {
      const { code, runId, stderr } = await interruptedRun(held.url, () => held.bodies.length);
      expect(code).toBe(130);
      expect(stderr.split('\n').slice(1)).toEqual([
        `terrarium: stopped following run ${runId}; it goes on in the server at ${served.url} ("terrarium bench cancel ${runId}" stops it)`,
        '',
      ]);
      // Before, the CLI exited without a word; the run went on all the same.
      expect((await served.store.getBenchRun(runId))?.status).toBe('running');
      const canceled = await cli('bench', 'cancel', runId);
      expect(canceled.stdout).toBe(
        `run ${runId} canceled (0 of 194 units recorded); "terrarium bench resume ${runId}" takes it up again\n`,
      );
    } finally {
      held.release();
      await held.close();
      await served.close();
    }
  });
});

/** One simulator's line of a report, the same numbers for each. */
function simLine(name: string): SimReport {
  return {
    sim: name,
    items: 3,
    overall: 50,
    overallMetric: 'rule:content',
    byDomain: { tool: 50 },
    byTask: { 'tau2-bench/retail': 50 },
    byMetric: { 'rule:content': 50 },
    failed: 0,
  };
}

/**
 * The cells of a `simLine` simulator on the run page: its mean on every item of the one task
 * (`overall`, `macro`, `tau2-bench/retail` alike), or no mean at all.
 */
function simCells(
  sim: string,
  mean: number | null,
  score: Pick<LeaderboardCell, 'source' | 'metric'> = { source: 'rule', metric: 'content' },
): LeaderboardCell[] {
  return ['overall', 'macro', 'tau2-bench/retail'].map((task) => ({
    sim,
    task,
    ...score,
    mean,
    ciLow: null,
    ciHigh: null,
    n: mean === null ? 0 : 3,
    missing: mean === null ? 3 : 0,
  }));
}

/** A content-score cell with an interval of -2.25/+2.5 around its mean. */
function contentCell(sim: string, task: string, mean: number): LeaderboardCell {
  return {
    sim,
    task,
    source: 'rule',
    metric: 'content',
    mean,
    ciLow: mean - 2.25,
    ciHigh: mean + 2.5,
    n: 194,
    missing: 0,
  };
}

describe('the `bench leaderboard` table', () => {
  it('prints a line per simulator and task with the interval, overall and macro first', () => {
    const run = BenchRun.parse({
      id: '7',
      bench: 'demo',
      benchVersion: 1,
      sims: ['retrieval'],
      judge: null,
      mode: { kind: 'open' },
      split: 'test',
      status: 'running',
      createdAt: '2026-12-05T10:00:00.000Z',
      finishedAt: null,
      total: 388,
      done: 200,
      failed: 0,
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      judgeUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      error: null,
      prompts: null,
    });
    const cells = [
      contentCell('retrieval', 'tau2-bench/retail', 49.6),
      contentCell('retrieval', 'macro', 49.6),
      contentCell('retrieval', 'overall', 49.6),
    ];
    expect(leaderboardTable({ run, intervals: 'after-run' }, 'rule:content', cells)).toBe(
      [
        'bench demo v1, run 7 (running); rule:content, 0-100',
        'sim        task               mean        95% CI    n  missing',
        'retrieval  overall            49.6  [47.4, 52.1]  194        0',
        'retrieval  macro              49.6  [47.4, 52.1]  194        0',
        'retrieval  tau2-bench/retail  49.6  [47.4, 52.1]  194        0',
        'note: the run still goes: means of what is scored so far, intervals once it ends',
        '',
      ].join('\n'),
    );
  });
});

/** A cell of a run over 10 items of intercode/bash and 30 of tau2 retail. */
function twoTaskCell(sim: string, task: string, mean: number, metric = 'content'): LeaderboardCell {
  return {
    ...contentCell(sim, task, mean),
    metric,
    n: task === 'intercode/bash' ? 10 : task === 'tau2-bench/retail' ? 30 : 40,
  };
}

describe('the `bench run` table', () => {
  it('has the run page’s columns, overall, macro and each task, from its cells', () => {
    // A run over two tasks: 10 items of intercode/bash at 20.0, 30 of tau2 retail at 60.0, so
    // overall (every item alike) 50.0 and macro (every task alike) 40.0, as the page's cells say.
    const cells = [
      ...['overall', 'macro', 'intercode/bash', 'tau2-bench/retail'].map((task) =>
        twoTaskCell('replay', task, 100),
      ),
      twoTaskCell('retrieval', 'tau2-bench/retail', 60),
      twoTaskCell('retrieval', 'overall', 50),
      twoTaskCell('retrieval', 'intercode/bash', 20),
      twoTaskCell('retrieval', 'macro', 40),
      // Another score of the run: not the table's.
      twoTaskCell('retrieval', 'overall', 12.5, 'exact-match'),
    ];
    const table = reportTable(
      {
        bench: 'demo',
        benchVersion: 1,
        run: '7',
        status: 'done',
        sims: [simLine('replay'), { ...simLine('retrieval'), failed: 2 }],
        judgeGaps: [],
        judgeSides: null,
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        judgeUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      },
      { run: demoRun({ status: 'done' }), cells },
    );
    expect(table.split('\n').slice(0, 4)).toEqual([
      'bench demo v1, run 7 (done); overall = rule:content, 0-100',
      'sim              items  overall  macro  intercode/bash  tau2-bench/retail  failed',
      'replay (oracle)     40    100.0  100.0           100.0              100.0       0',
      'retrieval           40     50.0   40.0            20.0               60.0       2',
    ]);
  });

  it('says under the table that the bundled model trained on the shipped trajectories', () => {
    const table = reportTable(
      {
        bench: 'demo',
        benchVersion: 1,
        run: '7',
        status: 'done',
        sims: [simLine('retrieval'), simLine('onnx:models/terrarium-wm-tiny')],
        judgeGaps: [],
        judgeSides: null,
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        judgeUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      },
      {
        run: demoRun({ status: 'done' }),
        cells: [...simCells('retrieval', 50), ...simCells('onnx:models/terrarium-wm-tiny', 50)],
      },
    );
    expect(table.split('\n').slice(0, 4)).toEqual([
      'bench demo v1, run 7 (done); overall = rule:content, 0-100',
      'sim                            items  overall  macro  tau2-bench/retail  failed',
      'retrieval                          3     50.0   50.0               50.0       0',
      'onnx:models/terrarium-wm-tiny      3     50.0   50.0               50.0       0',
    ]);
    expect(table.split('\n')[4]).toMatch(
      /^note: onnx:models\/terrarium-wm-tiny: Trained here on 4 of 5 tasks/,
    );
  });

  it('gives a pairwise judge’s win shares under the table, and what it answered by side', () => {
    const table = reportTable(
      {
        bench: 'demo',
        benchVersion: 1,
        run: '7',
        status: 'done',
        sims: [
          { ...simLine('replay'), byMetric: { 'judge:pairwise:retrieval': 50 } },
          { ...simLine('retrieval'), byMetric: { 'judge:pairwise:replay': 50 } },
        ],
        judgeGaps: [],
        judgeSides: {
          mode: 'pairwise',
          subject: 'replay',
          judgings: 24,
          subjectAsA: 12,
          a: 24,
          b: 0,
          tie: 0,
          unparsed: 0,
        },
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        judgeUsage: { inputTokens: 24, outputTokens: 24, costUsd: null },
      },
      {
        run: demoRun({ status: 'done' }),
        cells: [...simCells('replay', 100), ...simCells('retrieval', 50)],
      },
    );
    expect(table.split('\n').slice(5, 7)).toEqual([
      "pairwise: replay (oracle) 50.0 vs retrieval 50.0 (the judge's win shares, 0-100, a tie counting half)",
      'warning: The pairwise judge answered A in 24 of 24 judgings, B in 0, a tie in 0; replay was response A in 12 of them. Each simulator held each side about as often, so a judge that reads the responses answers A about as often as B: this split (sign test p < 0.001) says it prefers response A whatever it holds, and its win shares say little about the simulators.',
    ]);
  });

  it('shows the content score, as the run page, when the judge gave no verdict', () => {
    const judgedRun = demoRun({
      status: 'done',
      judge: {
        spec: 'openai:http://127.0.0.1:9/v1#judge',
        temperature: 0,
        repeats: 1,
        mode: 'score',
      },
    });
    const table = reportTable(
      {
        bench: 'demo',
        benchVersion: 1,
        run: '7',
        status: 'done',
        sims: [{ ...simLine('retrieval'), overall: null, overallMetric: 'judge:overall' }],
        judgeGaps: [
          {
            sim: 'retrieval',
            metric: 'overall',
            unreadable: 255,
            asked: 255,
            example: 'no JSON object with scores found',
          },
        ],
        judgeSides: null,
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        judgeUsage: {
          inputTokens: 412_000,
          outputTokens: 61_250,
          costUsd: null,
          unpriced: { units: 255, knownUsd: 0 },
        },
      },
      {
        run: judgedRun,
        cells: [
          // The judge's Overall, the run's, has no verdict to stand on: the table, as the run
          // page, shows the content score, which every item has.
          ...simCells('retrieval', null, { source: 'judge', metric: 'overall' }),
          ...simCells('retrieval', 50),
        ],
      },
    );
    expect(table.split('\n').slice(0, 5)).toEqual([
      'bench demo v1, run 7 (done); overall = rule:content (judge:overall has no verdict), 0-100',
      'sim        items  overall  macro  tau2-bench/retail  failed',
      'retrieval      3     50.0   50.0               50.0       0',
      'note: retrieval: the judge gave no verdict on 255 of 255 items (judge:overall), whose judge scores are missing ("terrarium bench retry 7" asks again); first error: no JSON object with scores found',
      // What the run cost, as its page says it.
      'cost: simulators 0 in / 0 out tokens · $0.00; judge 412,000 in / 61,250 out tokens · cost not priced',
    ]);
    // With verdicts, the judge's Overall is the table's.
    const judged = reportTable(
      {
        bench: 'demo',
        benchVersion: 1,
        run: '7',
        status: 'done',
        sims: [{ ...simLine('retrieval'), overall: 70, overallMetric: 'judge:overall' }],
        judgeGaps: [],
        judgeSides: null,
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        judgeUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      },
      {
        run: judgedRun,
        cells: [
          ...simCells('retrieval', 70, { source: 'judge', metric: 'overall' }),
          ...simCells('retrieval', 50),
        ],
      },
    );
    expect(judged.split('\n').slice(0, 3)).toEqual([
      'bench demo v1, run 7 (done); overall = judge:overall, 0-100',
      'sim        items  overall  macro  tau2-bench/retail  failed',
      'retrieval      3     70.0   70.0               70.0       0',
    ]);
  });
});

/** A run of the demo bench, `total` units with `done` of them recorded. */
function demoRun(fields: Partial<BenchRun>): BenchRun {
  return BenchRun.parse({
    id: '7',
    bench: 'demo',
    benchVersion: 1,
    sims: ['retrieval'],
    judge: null,
    mode: { kind: 'open' },
    split: 'test',
    status: 'running',
    createdAt: '2026-12-05T10:00:00.000Z',
    finishedAt: null,
    total: 2092,
    done: 0,
    failed: 0,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    judgeUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    error: null,
    prompts: null,
    ...fields,
  });
}

describe('`bench run` progress without a terminal', () => {
  it('prints a line per tenth of the run, with the real percentage of the exact count', () => {
    const lines: string[] = [];
    const update = progressLines((line) => lines.push(line));
    for (const done of [0, 150, 209, 210, 1900, 1933, 2000, 2091]) update(demoRun({ done }));
    update(demoRun({ done: 2090, failed: 2, status: 'done' }));
    expect(lines).toEqual([
      'run 7: 0/2092 units (0%), 0 failed, running\n',
      // 210 of 2092 is 10.04%: the first unit past a tenth prints, the rest of that tenth do not.
      'run 7: 210/2092 units (10%), 0 failed, running\n',
      'run 7: 1900/2092 units (90%), 0 failed, running\n',
      'run 7: 2092/2092 units (100%), 2 failed, done\n',
    ]);
    // Past 90%, the count is not rounded to its tenth: 1933 of 2092 is 92%.
    const late = progressLines((line) => lines.push(line));
    late(demoRun({ done: 1933 }));
    expect(lines.at(-1)).toBe('run 7: 1933/2092 units (92%), 0 failed, running\n');
  });

  it('shows a judge asked again going, from the verdicts it still owes', () => {
    const lines: string[] = [];
    const update = judgeProgress('7', 338, (line) => lines.push(line));
    // Read as the retry goes: a count that has not moved a tenth prints nothing.
    for (const owed of [338, 330, 304, 303, 120, 0]) update(owed);
    expect([...lines, judgeProgressEnd('7', 338, 0)]).toEqual([
      'run 7: asking the judge again for 338 verdicts\n',
      // 34 of 338 given is 10.06%: the first count past a tenth prints.
      'run 7: 34/338 verdicts given (10%)\n',
      'run 7: 218/338 verdicts given (64%)\n',
      'run 7: 338/338 verdicts given (100%)\n',
      'run 7: the judge gave 338 of the 338 verdicts asked for\n',
    ]);
    expect(judgeProgressEnd('7', 1, 1)).toBe(
      'run 7: the judge gave 0 of the 1 verdict asked for\n',
    );
  });

  it('says an empty run is done at 100%', () => {
    const lines: string[] = [];
    progressLines((line) => lines.push(line))(demoRun({ total: 0, status: 'done' }));
    expect(lines).toEqual(['run 7: 0/0 units (100%), 0 failed, done\n']);
  });
});

describe('the oracle in the CLI tables', () => {
  const oracleNote = ORACLE_NOTE;

  it('marks replay in `bench run` and says why under the table', () => {
    const table = reportTable(
      {
        bench: 'demo',
        benchVersion: 1,
        run: '7',
        status: 'done',
        sims: [{ ...simLine('replay'), overall: 100 }, simLine('retrieval')],
        judgeGaps: [],
        judgeSides: null,
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        judgeUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      },
      {
        run: demoRun({ status: 'done' }),
        cells: [...simCells('replay', 100), ...simCells('retrieval', 50)],
      },
    );
    expect(table).toBe(
      [
        'bench demo v1, run 7 (done); overall = rule:content, 0-100',
        'sim              items  overall  macro  tau2-bench/retail  failed',
        'replay (oracle)      3    100.0  100.0              100.0       0',
        'retrieval            3     50.0   50.0               50.0       0',
        oracleNote,
        'cost: simulators 0 in / 0 out tokens · $0.00',
        '',
      ].join('\n'),
    );
  });

  it('marks replay in `bench leaderboard` on each of its lines, and says why once', () => {
    const run = demoRun({ sims: ['replay', 'retrieval'], status: 'done', total: 388, done: 388 });
    const cells = [
      contentCell('retrieval', 'overall', 49.6),
      contentCell('replay', 'overall', 97.5),
      contentCell('replay', 'macro', 97.5),
    ];
    expect(leaderboardTable({ run, intervals: 'ready' }, 'rule:content', cells)).toBe(
      [
        'bench demo v1, run 7 (done); rule:content, 0-100',
        'sim              task     mean         95% CI    n  missing',
        'replay (oracle)  overall  97.5  [95.3, 100.0]  194        0',
        'replay (oracle)  macro    97.5  [95.3, 100.0]  194        0',
        'retrieval        overall  49.6   [47.4, 52.1]  194        0',
        oracleNote,
        '',
      ].join('\n'),
    );
  });

  it('marks replay in `bench runs`, and says how many verdicts a judged run lacks', () => {
    const run = demoRun({ sims: ['replay', 'retrieval'], status: 'done', total: 388, done: 388 });
    expect(
      runsTable([
        { ...run, missingVerdicts: 0 },
        { ...run, id: '8', missingVerdicts: 1 },
        { ...run, id: '9', failed: 2, missingVerdicts: 1204 },
      ]),
    ).toBe(
      [
        'run 7  demo v1 test  done 388/388  replay (oracle), retrieval  2026-12-05T10:00:00.000Z',
        'run 8  demo v1 test  done 388/388 (1 verdict missing)  replay (oracle), retrieval  2026-12-05T10:00:00.000Z',
        'run 9  demo v1 test  done 388/388 (2 failed) (1,204 verdicts missing)  replay (oracle), retrieval  2026-12-05T10:00:00.000Z',
        '',
      ].join('\n'),
    );
  });
});
