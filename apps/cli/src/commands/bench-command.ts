import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  queuesHoldLabelsText,
  readPromptFolder,
  SimulatorError,
  type AppRouter,
  type RunReport,
  type SimReport,
} from '@terrarium/api';
import type { PromptFolder } from '@terrarium/api';
import {
  BenchSplit,
  isFinishedRun,
  JudgeConfig,
  oracleNote,
  openingSelector,
  overallSelector,
  judgeRepeatsNote,
  judgeSidesText,
  parseSampling,
  scoreKey,
  SimSpec,
  retryableFailures,
  trainingDataNote,
  usageText,
  type BenchManifest,
  type BenchRun,
  type BenchRunListing,
  type BenchRunMode,
  type BenchSummary,
  type Leaderboard,
  type LeaderboardCell,
  type JudgeSides,
} from '@terrarium/schema';
import { createTRPCClient, httpLink } from '@trpc/client';
import { SingleBar } from 'cli-progress';
import {
  BENCH_FLAGS,
  localBenchClient,
  remoteBenchClient,
  type BenchClient,
} from '../bench/bench-client';
import { CliError, inCliWords } from '../cli-error';
import { pollEvery } from '../poll-every';
import {
  connect,
  dataDirFor,
  disconnect,
  programTokenFor,
  type DataTarget,
  type GlobalOptions,
} from '../connect';
import { authHeaders, serverFailure } from '../server-client';
import { writeOutputFile, type OutputStream } from '../output-path';

/** Opens the bench client for the data target, runs `work`, and always closes both. */
async function withBenchClient<T>(
  options: GlobalOptions & { workers?: number },
  work: (client: BenchClient, target: DataTarget) => Promise<T>,
): Promise<T> {
  const target = await connect(options);
  const client =
    target.kind === 'server'
      ? remoteBenchClient(target.url, target.token)
      : localBenchClient(target.store, { workers: options.workers ?? 2 });
  try {
    return await work(client, target);
  } catch (error) {
    // In this process the service refuses bad input (an unknown bench or dataset, an empty split)
    // with a TRPCError or SimulatorError whose message names the field: the user's to act on,
    // not a crash.
    if (error instanceof Error && (error.name === 'TRPCError' || error instanceof SimulatorError))
      throw new CliError(inCliWords(error.message, BENCH_FLAGS));
    throw error;
  } finally {
    await client.close();
    await disconnect(target);
  }
}

function print(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : text);
}

function describeManifest(manifest: BenchManifest): string {
  const tasks = Object.entries(manifest.byTask)
    .map(([task, count]) => `${task} ${count}`)
    .join(', ');
  return (
    `bench ${manifest.name} v${manifest.version}: ${manifest.itemCount} items (${tasks})` +
    (manifest.duplicatesDropped > 0 ? `, ${manifest.duplicatesDropped} duplicates dropped` : '') +
    `\n`
  );
}

export interface BenchBuildOptions extends GlobalOptions {
  name: string;
  dataset: string[];
  sampling: string;
  seed: number;
  devFraction: number;
  maxPerTask?: number;
  json?: boolean;
}

export async function runBenchBuild(options: BenchBuildOptions): Promise<void> {
  const sampling = parseSampling(options.sampling);
  if (sampling === null) {
    throw new CliError(`--sampling ${options.sampling}: expected agentworld, all or random:N`);
  }
  const manifest = await withBenchClient(options, (client) =>
    client.build({
      name: options.name,
      datasets: options.dataset,
      sampling,
      seed: options.seed,
      devFraction: options.devFraction,
      maxItemsPerTask: options.maxPerTask,
    }),
  );
  print(options.json, manifest, describeManifest(manifest));
}

export async function runBenchList(options: GlobalOptions & { json?: boolean }): Promise<void> {
  const benches = await withBenchClient(options, (client) => client.list());
  print(options.json, benches, benchTable(benches));
}

export function benchTable(benches: BenchSummary[]): string {
  if (benches.length === 0) return 'No benches yet. Build one with `terrarium bench build`.\n';
  return benches
    .map(
      (bench) =>
        `${bench.name} v${bench.version}  ${bench.itemCount} items` +
        (bench.splits.dev > 0 ? ` (test ${bench.splits.test}, dev ${bench.splits.dev})` : '') +
        `  ${bench.sampling.kind}  ` +
        `from ${bench.sources.join(', ')}  ${bench.runs} ${bench.runs === 1 ? 'run' : 'runs'}\n`,
    )
    .join('');
}

export interface BenchImportOptions extends GlobalOptions {
  name: string;
  json?: boolean;
  /** `--server URL`: a running Terrarium to upload to, whatever --data-dir holds. */
  server?: string;
}

/**
 * The files a `bench import` path names: the file itself, or in a folder its `*_test.jsonl` files
 * (the official layout, sorted as the official script loads them), else its `*.jsonl` files.
 */
export async function benchImportFiles(target: string): Promise<string[]> {
  let info;
  try {
    info = await stat(target);
  } catch (error) {
    throw new CliError(
      `cannot read ${target}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!info.isDirectory()) return [target];
  const names = (await readdir(target)).toSorted();
  const official = names.filter((name) => name.endsWith('_test.jsonl'));
  const chosen = official.length > 0 ? official : names.filter((name) => name.endsWith('.jsonl'));
  if (chosen.length === 0) {
    throw new CliError(`${target}: no *_test.jsonl or *.jsonl file in this folder`);
  }
  return chosen.map((name) => path.join(target, name));
}

async function uploadToServer(
  server: string,
  options: GlobalOptions,
  input: Parameters<BenchClient['importFiles']>[0],
) {
  const url = server.replace(/\/+$/, '');
  const token = await programTokenFor(dataDirFor(options));
  if (token === null) {
    throw new CliError(
      `--server ${server}: no program token; set TERRARIUM_TOKEN (printed by \`terrarium serve\`)`,
    );
  }
  return remoteBenchClient(url, token).importFiles(input);
}

/** Exit code 2 when some rows were skipped, as `terrarium import` does for quarantined records. */
export async function runBenchImport(target: string, options: BenchImportOptions): Promise<void> {
  const files = await benchImportFiles(target);
  const input = {
    name: options.name,
    files: files.map((file) => ({ fileName: path.basename(file), path: file })),
  };
  const result =
    options.server === undefined
      ? await withBenchClient(options, (client) => client.importFiles(input))
      : await uploadToServer(options.server, options, input);
  const errors = result.errors.map((error) => `${error.message}\n`).join('');
  if (result.manifest === null) {
    throw new CliError(`${target}: no row could be read; nothing imported\n${errors}`.trimEnd());
  }
  print(options.json, result, describeManifest(result.manifest) + errors);
  if (result.errors.length > 0) process.exitCode = 2;
}

export interface BenchExportOptions extends GlobalOptions {
  name: string;
  benchVersion?: number;
  format: 'agentworldbench' | 'sft';
  out: string;
  dataset?: string[];
  reasoning?: boolean;
  json?: boolean;
}

async function writeLines(
  out: OutputStream,
  lines: AsyncIterable<string> | Iterable<string>,
): Promise<number> {
  let count = 0;
  for await (const line of lines) {
    await out.write(`${line}\n`);
    count++;
  }
  return count;
}

export async function runBenchExport(options: BenchExportOptions): Promise<void> {
  await withBenchClient(options, async (client) => {
    if (options.format === 'agentworldbench') {
      const items = await writeOutputFile(options.out, (out) =>
        writeLines(out, client.exportAgentWorldBench(options.name, options.benchVersion)),
      );
      print(
        options.json,
        { bench: options.name, format: options.format, out: options.out, items },
        `${items} items written to ${options.out}\n`,
      );
      return;
    }
    const datasets = options.dataset ?? [];
    if (datasets.length === 0) {
      throw new CliError(
        '--format sft needs --dataset NAME (the datasets to draw training data from)',
      );
    }
    // Exported inside the write, so that a wrong --out is said before the export's work.
    const { sft, records } = await writeOutputFile(options.out, async (out) => {
      const exported = await client.exportSft({
        bench: options.name,
        ...(options.benchVersion === undefined ? {} : { version: options.benchVersion }),
        datasets,
        includeReasoning: options.reasoning ?? false,
      });
      return { sft: exported, records: await writeLines(out, exported.lines) };
    });
    const summary = {
      bench: options.name,
      format: options.format,
      out: options.out,
      records,
      trajectoriesExcluded: sft.trajectoriesExcluded,
      recordsDropped: sft.recordsDropped,
      leakedItems: sft.leakedItems,
    };
    print(
      options.json,
      summary,
      `${records} records written to ${options.out}; ${sft.trajectoriesExcluded} bench trajectories left out, ` +
        `${sft.recordsDropped} records cut for sharing a 13-gram with the bench; leaked bench items: ${sft.leakedItems}\n`,
    );
  });
}

export async function runBenchRuns(
  options: GlobalOptions & { bench?: string; json?: boolean },
): Promise<void> {
  const runs = await withBenchClient(options, (client) => client.runs(options.bench));
  print(options.json, runs, runsTable(runs));
}

/** A line per run, newest first: what `bench results RUN` needs, the run's id, comes first. */
export function runsTable(runs: readonly BenchRunListing[]): string {
  if (runs.length === 0) return 'No bench runs yet. Start one with `terrarium bench run`.\n';
  return runs
    .map(
      (run) =>
        `run ${run.id}  ${run.bench} v${run.benchVersion} ${run.split}` +
        (run.mode.kind === 'closed' ? ` closed:${run.mode.steps}` : '') +
        `  ${run.status} ${run.done}/${run.total}` +
        (run.failed > 0 ? ` (${run.failed} failed)` : '') +
        (run.missingVerdicts > 0
          ? ` (${formatUnits(run.missingVerdicts)} ${run.missingVerdicts === 1 ? 'verdict' : 'verdicts'} missing)`
          : '') +
        `  ${run.sims.map(simLabel).join(', ')}  ${run.createdAt}\n`,
    )
    .join('');
}

export interface BenchResultsOptions extends GlobalOptions {
  out: string;
  json?: boolean;
  history?: boolean;
}

export async function runBenchResults(runId: string, options: BenchResultsOptions): Promise<void> {
  const units = await withBenchClient(options, (client) =>
    writeOutputFile(options.out, (out) =>
      writeLines(out, client.results(runId, { history: options.history === true })),
    ),
  );
  print(
    options.json,
    { run: runId, out: options.out, units },
    `${units} results written to ${options.out}: a line per item and simulator, scores 0-1 by source:metric\n`,
  );
}

export interface BenchRunOptions extends GlobalOptions {
  bench: string;
  benchVersion?: number;
  sim: string[];
  judge?: string;
  judgeRepeats: number;
  judgeMode: 'score' | 'turing' | 'pairwise';
  /** The judge's sampling temperature (default 0). */
  judgeTemperature: number;
  mode: string;
  split: string;
  workers: number;
  json?: boolean;
  /** A folder laid out like the official `prompts/` (see `readPromptFolder`). */
  prompts?: string;
}

/** The `--prompts DIR` folder, read once; a folder in another layout is the user's to fix. */
export async function promptsOption(dir: string | undefined): Promise<PromptFolder | null> {
  if (dir === undefined) return null;
  try {
    return await readPromptFolder(dir);
  } catch (error) {
    throw new CliError(
      `--prompts ${dir}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function parseMode(text: string): BenchRunMode | null {
  if (text === 'open') return { kind: 'open' };
  const closed = /^closed:(\d+)$/.exec(text);
  const steps = closed?.[1] === undefined ? 0 : Number(closed[1]);
  return steps > 0 ? { kind: 'closed', steps } : null;
}

/** The whole percent of a run's units recorded, rounded down (1933 of 2092 is 92%); none is 100%. */
function percentRecorded(run: Pick<BenchRun, 'done' | 'failed' | 'total'>): number {
  return run.total === 0 ? 100 : Math.floor(((run.done + run.failed) * 100) / run.total);
}

/**
 * Progress as lines for a log: one at the start and one as the run passes each further tenth, so a
 * long run shows going in a dozen lines; each says the exact count and its real percentage.
 */
export function progressLines(write: (line: string) => void): (run: BenchRun) => void {
  let shown = -1;
  return (run) => {
    const percent = percentRecorded(run);
    const tenth = Math.floor(percent / 10);
    if (tenth <= shown) return;
    shown = tenth;
    write(
      `run ${run.id}: ${run.done + run.failed}/${run.total} units (${percent}%), ${run.failed} failed, ${run.status}\n`,
    );
  };
}

/**
 * Progress on stderr (stdout keeps the result alone, `--json` included): a bar on a terminal,
 * else lines (`progressLines`), so a script's log shows a long run going.
 */
function progressBar(): { update(run: BenchRun): void; stop(): void } {
  if (!process.stderr.isTTY) {
    return {
      update: progressLines((line) => process.stderr.write(line)),
      stop() {},
    };
  }
  const bar = new SingleBar({
    stream: process.stderr,
    format: '{bar} {value}/{total} predictions | {failed} failed | {tokens} tokens | {status}',
    hideCursor: true,
    clearOnComplete: true,
  });
  let started = false;
  return {
    update(run) {
      const values = {
        failed: run.failed,
        tokens: run.usage.inputTokens + run.usage.outputTokens,
        status: run.status,
      };
      if (!started) bar.start(run.total, run.done + run.failed, values);
      else bar.update(run.done + run.failed, values);
      started = true;
    },
    stop: () => bar.stop(),
  };
}

export async function runBenchRun(options: BenchRunOptions): Promise<void> {
  const sims = options.sim.map((sim) => {
    const parsed = SimSpec.safeParse(sim);
    if (!parsed.success) {
      throw new CliError(`--sim ${sim}: expected replay, retrieval, onnx:PATH or openai:URL#MODEL`);
    }
    return parsed.data;
  });
  const mode = parseMode(options.mode);
  if (mode === null) throw new CliError(`--mode ${options.mode}: expected open or closed:K`);
  const split = BenchSplit.safeParse(options.split);
  if (!split.success) throw new CliError(`--split ${options.split}: expected test or dev`);
  const judge =
    options.judge === undefined
      ? null
      : JudgeConfig.safeParse({
          spec: options.judge,
          temperature: options.judgeTemperature,
          repeats: options.judgeRepeats,
          mode: options.judgeMode,
        });
  if (judge !== null && !judge.success) {
    // Named by the option the user typed: the first field that did not parse.
    const field = judge.error.issues[0]?.path[0];
    throw new CliError(
      field === 'repeats'
        ? `--judge-repeats ${options.judgeRepeats}: expected 1 to 10 judgings per item`
        : field === 'temperature'
          ? `--judge-temperature ${options.judgeTemperature}: expected 0 to 2`
          : `--judge ${options.judge ?? ''}: expected openai:URL#MODEL`,
    );
  }
  const repeatsNote = judge === null ? null : judgeRepeatsNote(judge.data);
  if (repeatsNote !== null) process.stderr.write(`note: ${repeatsNote}\n`);
  const prompts = await promptsOption(options.prompts);
  await followAndReport(options, (client, onProgress) =>
    client.run(
      {
        bench: options.bench,
        version: options.benchVersion,
        sims,
        judge: judge?.data ?? null,
        mode,
        split: split.data,
        // Recorded with the run; without --prompts a server uses its own `serve --prompts` folder.
        ...(prompts === null ? {} : { prompts }),
      },
      onProgress,
    ),
  );
}

/**
 * Follows a run that `start` starts or resumes to its end, with progress on stderr, then prints
 * its report (a table, or one JSON object with --json) and says on stderr how a run that did not
 * finish ended (exit code 1).
 */
async function followAndReport(
  options: GlobalOptions & { workers?: number; json?: boolean },
  start: (client: BenchClient, onProgress: (run: BenchRun) => void) => Promise<BenchRun>,
  knownRunId: string | null = null,
): Promise<RunReport> {
  const bar = progressBar();
  const { report, board, ended } = await withBenchClient(options, async (client) => {
    let runId = knownRunId;
    const interrupted = () => {
      bar.stop();
      void interrupt(client, runId);
    };
    process.once('SIGINT', interrupted);
    try {
      const run = await start(client, (progress) => {
        runId = progress.id;
        bar.update(progress);
      });
      bar.stop();
      if (run.status === 'done' && run.judge?.mode === 'pairwise') {
        await client.judgePairwise(run.id);
      }
      return {
        report: await client.report(run.id),
        // The table's figures are the run page's cells (its means are final once the run has
        // ended, whether or not the intervals, which the table leaves out, are computed yet).
        // Means alone: the table shows no interval, so it asks for none to be computed.
        board: options.json ? null : await client.leaderboard(run.id, 0),
        ended: run,
      };
    } finally {
      process.off('SIGINT', interrupted);
    }
  });
  if (options.json) {
    const { bench, judgeGaps, judgeSides, usage, judgeUsage } = report;
    const sims = report.sims.map(({ sim, ...row }) => ({ sim, oracle: isOracle(sim), ...row }));
    const { run, status } = report;
    process.stdout.write(
      `${JSON.stringify({ bench, run, status, sims, judgeGaps, judgeSides, usage, judgeUsage })}\n`,
    );
  } else if (board !== null) {
    process.stdout.write(reportTable(report, board));
  }
  if (report.status !== 'done') {
    // Said on stderr, so that the JSON on stdout stays one object.
    process.stderr.write(
      `terrarium: run ${ended.id} ended ${ended.status}${ended.error === null ? '' : `: ${ended.error}`} ` +
        `(${formatUnits(ended.done + ended.failed)} of ${formatUnits(ended.total)} units recorded)\n`,
    );
    process.exitCode = 1;
  }
  return report;
}

/**
 * Ctrl-C while a run is followed. A server's run is its job: it goes on, and the line says how to
 * stop it. A run in this process is canceled as `bench cancel` does (an asking of its judge
 * stopped too) rather than cut off mid-unit: the follow then ends as for any canceled run, with
 * its report, and `bench resume` or `bench retry` takes it up.
 */
async function interrupt(client: BenchClient, runId: string | null): Promise<void> {
  if (client.server !== null || runId === null) {
    process.stderr.write(
      runId === null
        ? 'terrarium: interrupted before the run started\n'
        : `terrarium: stopped following run ${runId}; it goes on in the server at ${client.server} ` +
            `("terrarium bench cancel ${runId}" stops it)\n`,
    );
    process.exit(130);
  }
  const run = await client.cancel(runId);
  process.stderr.write(`terrarium: ${cancelText(run, await client.stopJudge(runId))}`);
}

/** What `bench cancel` did: a run canceled, an asking of its judge stopped, or neither. */
function cancelText(run: BenchRun, judge: { stopped: boolean; missing: number }): string {
  if (judge.stopped) {
    return `run ${run.id}: stopped asking its judge; ${verdicts(judge.missing)} still missing ("terrarium bench retry ${run.id}" asks again)\n`;
  }
  if (run.status === 'canceled') {
    return (
      `run ${run.id} canceled (${formatUnits(run.done + run.failed)} of ${formatUnits(run.total)} units recorded); ` +
      `"terrarium bench resume ${run.id}" takes it up again\n`
    );
  }
  return `run ${run.id} was already ${run.status}; nothing to cancel\n`;
}

export interface BenchLeaderboardOptions extends GlobalOptions {
  score?: string;
  json?: boolean;
}

/**
 * `bench leaderboard RUN`: every simulator × task cell of one score with its 95% bootstrap
 * interval, n and missing, as the run page shows them (the same cells: one computation). A run
 * that has just ended is waited for while its intervals are computed.
 */
export async function runBenchLeaderboard(
  runId: string,
  options: BenchLeaderboardOptions,
): Promise<void> {
  const board = await withBenchClient({ ...options, workers: 0 }, async (client) => {
    for (;;) {
      const current = await client.leaderboard(runId);
      if (current.intervals !== 'computing') return current;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });
  const keys = [...new Set(board.cells.map((cell) => scoreKey(cell)))].toSorted();
  // The score the run page opens on: a judge that gave no verdict leaves the content score.
  const score = options.score ?? scoreKey(openingSelector(board.run, board.cells));
  if (!keys.includes(score)) {
    throw new CliError(
      `--score ${score}: run ${runId} has no such score (${keys.join(', ') || 'none yet'})`,
    );
  }
  const cells = ordered(board.cells.filter((cell) => scoreKey(cell) === score));
  const { run } = board;
  if (options.json) {
    const rows = cells.map(({ sim, ...cell }) => ({ sim, oracle: isOracle(sim), ...cell }));
    process.stdout.write(
      `${JSON.stringify({ run: run.id, bench: run.bench, benchVersion: run.benchVersion, status: run.status, score, intervals: board.intervals, cells: rows })}\n`,
    );
    return;
  }
  process.stdout.write(leaderboardTable(board, score, cells));
}

/** The cells of one score, a line each, simulators then overall, macro and each task. */
export function leaderboardTable(
  board: Pick<Leaderboard, 'run' | 'intervals'>,
  score: string,
  cells: readonly LeaderboardCell[],
): string {
  const sorted = ordered(cells);
  const rows = sorted.map((cell) => [
    simLabel(cell.sim),
    cell.task,
    fixed(cell.mean),
    cell.ciLow === null || cell.ciHigh === null
      ? '-'
      : `[${cell.ciLow.toFixed(1)}, ${cell.ciHigh.toFixed(1)}]`,
    String(cell.n),
    String(cell.missing),
  ]);
  const header = ['sim', 'task', 'mean', '95% CI', 'n', 'missing'];
  const { run } = board;
  const note =
    board.intervals === 'after-run'
      ? ['note: the run still goes: means of what is scored so far, intervals once it ends']
      : [];
  return [
    `bench ${run.bench} v${run.benchVersion}, run ${run.id} (${run.status}); ${score}, 0-100`,
    ...alignedRows([header, ...rows], 2),
    ...simNotes([...new Set(sorted.map((cell) => cell.sim))]),
    ...note,
    '',
  ].join('\n');
}

function taskOrder(task: string): number {
  return task === 'overall' ? 0 : task === 'macro' ? 1 : 2;
}

/** By simulator, then overall, macro and the tasks by name: the run page's order. */
function ordered(cells: readonly LeaderboardCell[]): LeaderboardCell[] {
  return cells.toSorted(
    (a, b) =>
      compareText(a.sim, b.sim) ||
      taskOrder(a.task) - taskOrder(b.task) ||
      compareText(a.task, b.task),
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rows as aligned columns: the first `left` columns padded on the right, the rest on the left. */
function alignedRows(rows: readonly string[][], left: number): string[] {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((cells) => (cells[column] ?? '').length)),
  );
  return rows.map((cells) =>
    cells
      .map((cell, column) =>
        column < left ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** `bench resume RUN`: a canceled run taken up where it stopped, followed as `bench run` does. */
export async function runBenchResume(
  runId: string,
  options: GlobalOptions & { workers?: number; json?: boolean },
): Promise<void> {
  await followAndReport(options, (client, onProgress) => client.resume(runId, onProgress), runId);
}

/**
 * `bench retry RUN`: what failed in a run that has ended, done again: its judge asked again where
 * a verdict is missing, its failed units predicted again (an endpoint that was down or refused
 * them), followed as `bench run` does.
 */
export async function runBenchRetry(
  runId: string,
  options: GlobalOptions & { workers?: number; json?: boolean },
): Promise<void> {
  let judged = '';
  const report = await followAndReport(
    options,
    async (client, onProgress) => {
      // The judge is asked inside the retry's request, which says nothing until it ends: the
      // verdicts still owed, read meanwhile, show it going.
      const owed = await client.owedVerdicts(runId);
      const progress = judgeProgress(runId, owed, (line) => process.stderr.write(line));
      const polling =
        owed === 0
          ? null
          : pollEvery(POLL_MS, async () => progress(await client.owedVerdicts(runId)));
      const ended = await client
        .retryFailed(runId, (run) => {
          polling?.stop();
          onProgress(run);
        })
        .finally(() => polling?.stop());
      if (owed > 0) judged = judgeProgressEnd(runId, owed, await client.owedVerdicts(runId));
      return ended;
    },
    runId,
  );
  process.stderr.write(judged);
  // Asked again and still without a verdict: the retry did not do what it was for.
  const [gap] = report.judgeGaps;
  if (gap !== undefined) {
    const missing = report.judgeGaps
      .map((each) => `${each.sim} judge:${each.metric} ${each.unreadable} of ${each.asked}`)
      .join(', ');
    process.stderr.write(
      `terrarium: run ${report.run}: asked again, verdicts are still missing (${missing}); first error: ${gap.example}\n`,
    );
    process.exitCode = 1;
  }
}

/** How often a retry reads the verdicts its judge still owes. */
const POLL_MS = 1000;

/**
 * Lines for a judge asked again for `owed` verdicts: one at the start, then one as the verdicts
 * given pass each further tenth (as `progressLines` does for units), from the counts still owed.
 */
export function judgeProgress(
  runId: string,
  owed: number,
  write: (line: string) => void,
): (stillOwed: number) => void {
  if (owed > 0) write(`run ${runId}: asking the judge again for ${verdicts(owed)}\n`);
  let shown = 0;
  return (stillOwed) => {
    const given = Math.max(0, owed - stillOwed);
    const tenth = Math.floor((10 * given) / owed);
    if (tenth <= shown) return;
    shown = tenth;
    const percent = Math.floor((100 * given) / owed);
    write(`run ${runId}: ${given}/${owed} verdicts given (${percent}%)\n`);
  };
}

/** A count of verdicts, unformatted as `progressLines` prints its counts. */
function verdicts(count: number): string {
  return `${count} ${count === 1 ? 'verdict' : 'verdicts'}`;
}

/** The line a retry ends its judge's progress with: how many of the verdicts asked for it gave. */
export function judgeProgressEnd(runId: string, owed: number, stillOwed: number): string {
  return `run ${runId}: the judge gave ${Math.max(0, owed - stillOwed)} of the ${verdicts(owed)} asked for\n`;
}

/**
 * `bench cancel RUN`: a queued or running run canceled, and an asking of its judge under way (a
 * retry, the pairs judged as it ended) stopped, keeping what the judge gave.
 */
export async function runBenchCancel(
  runId: string,
  options: GlobalOptions & { json?: boolean },
): Promise<void> {
  const { run, judge } = await withBenchClient({ ...options, workers: 0 }, async (client) => ({
    run: await client.cancel(runId),
    judge: await client.stopJudge(runId),
  }));
  print(options.json, { ...run, stoppedJudge: judge.stopped }, cancelText(run, judge));
}

export interface BenchDeleteOptions extends GlobalOptions {
  yes?: boolean;
  json?: boolean;
}

/** The labeling queues of the data target, with the run each rests on. */
async function labelQueuesOf(
  target: DataTarget,
): Promise<{ name: string; runId: string | null; labels: number }[]> {
  if (target.kind === 'store') return target.store.listLabelQueues();
  const trpc = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${target.url}/trpc`, headers: authHeaders(target.token) })],
  });
  return trpc.labels.queues.query().catch((error: unknown) => {
    throw serverFailure(error, target.url);
  });
}

/**
 * What makes the service refuse to delete the run now, worded for the user; null when nothing
 * does. Asked before the delete, so that the dry run says it rather than "add --yes" to a delete
 * that --yes cannot do (walk 52). The service has no dry run: this reads what its refusals rest
 * on (the run still going, a labeling queue on it); it still decides, and says any other reason
 * (a judge asked again meanwhile) itself.
 */
async function deleteRunObstacle(run: BenchRun, target: DataTarget): Promise<string | null> {
  if (!isFinishedRun(run)) {
    return `it is still ${run.status}; cancel it first (terrarium bench cancel ${run.id})`;
  }
  const queues = (await labelQueuesOf(target)).filter((queue) => queue.runId === run.id);
  if (queues.length === 0) return null;
  return queuesHoldLabelsText(
    queues.map(
      (queue) => `"${queue.name}" (${queue.labels} ${queue.labels === 1 ? 'label' : 'labels'})`,
    ),
  );
}

/**
 * `bench delete-run RUN`: the run with its predictions and scores. Without `--yes` it only says
 * what would go, or why it cannot go, so a mistyped command in a script deletes nothing.
 */
export async function runBenchDeleteRun(runId: string, options: BenchDeleteOptions): Promise<void> {
  const deleted = await withBenchClient({ ...options, workers: 0 }, async (client, target) => {
    const run = (await client.runs()).find((found) => found.id === runId);
    if (run === undefined)
      throw new CliError(`no bench run ${runId} ("terrarium bench runs" lists them)`);
    const obstacle = await deleteRunObstacle(run, target);
    if (obstacle !== null) {
      throw new CliError(
        `run ${run.id} of bench ${run.bench} v${run.benchVersion} cannot be deleted` +
          `${options.yes === true ? '' : ', even with --yes'}: ${obstacle}`,
      );
    }
    if (options.yes !== true) {
      throw new CliError(
        `this deletes run ${run.id} of bench ${run.bench} v${run.benchVersion}: ` +
          `${formatUnits(run.done + run.failed)} units with their predictions and scores; add --yes to delete it`,
      );
    }
    return client.deleteRun(run.id);
  });
  print(
    options.json,
    deleted,
    `deleted run ${deleted.deleted} of bench ${deleted.bench} v${deleted.benchVersion} (${formatUnits(deleted.units)} units)\n`,
  );
}

/** `bench delete --name N --bench-version V`: one version with its items and runs. */
export async function runBenchDelete(
  options: BenchDeleteOptions & { name: string; benchVersion: number },
): Promise<void> {
  const deleted = await withBenchClient({ ...options, workers: 0 }, async (client) => {
    const benches = await client.list();
    const bench = benches.find(
      (found) => found.name === options.name && found.version === options.benchVersion,
    );
    if (bench === undefined) {
      const versions = benches
        .filter((found) => found.name === options.name)
        .map((found) => `v${found.version}`);
      throw new CliError(
        `no bench ${options.name} v${options.benchVersion}` +
          (versions.length === 0 ? '' : ` (it has ${versions.join(', ')})`),
      );
    }
    if (options.yes !== true) {
      throw new CliError(
        `this deletes bench ${bench.name} v${bench.version}: ${formatUnits(bench.itemCount)} items and ` +
          `${bench.runs} ${bench.runs === 1 ? 'run' : 'runs'} with their scores (the datasets it was built from stay); add --yes to delete it`,
      );
    }
    return client.deleteBench(bench.name, bench.version);
  });
  print(
    options.json,
    deleted,
    `deleted bench ${deleted.name} v${deleted.version} (${formatUnits(deleted.items)} items, ${deleted.runs} ${deleted.runs === 1 ? 'run' : 'runs'})\n`,
  );
}

function formatUnits(count: number): string {
  return count.toLocaleString('en-US');
}

/**
 * Whether `sim` is an oracle (replay: its predictions are the recorded observations), by the rule
 * the run page's tag follows, so the CLI and the web never disagree on which one is.
 */
function isOracle(sim: string): boolean {
  return oracleNote(sim) !== null;
}

/** A simulator as a table names it: an oracle says so, as the run page's tag does. */
export function simLabel(sim: string): string {
  return isOracle(sim) ? `${sim} (oracle)` : sim;
}

/** Under a table, why a simulator's score does not read like a model's: an oracle, or trained on the data. */
function simNotes(sims: readonly string[]): string[] {
  return sims.flatMap((sim) =>
    [oracleNote(sim), trainingDataNote(sim)].flatMap((note) =>
      note === null ? [] : [`note: ${sim}: ${note}`],
    ),
  );
}

function fixed(value: number | null): string {
  return value === null ? '-' : value.toFixed(1);
}

function failedNote(report: RunReport): string[] {
  const failed = report.sims.reduce((sum, sim) => sum + sim.failed, 0);
  if (failed === 0) return [];
  const retry =
    retryableFailures(report.sims) > 0
      ? `, "terrarium bench retry ${report.run}" predicts them again`
      : ' (misses of replay or retrieval, which a retry finds missing again)';
  return [
    `note: ${formatUnits(failed)} ${failed === 1 ? 'unit' : 'units'} failed and ${failed === 1 ? 'is' : 'are'} left out of the scores; ` +
      `"terrarium bench results ${report.run}" gives each error${retry}`,
  ];
}

/**
 * What the run's model calls cost, as its page says it: the simulators', then the judge's when it
 * spent anything or its calls were not recorded (a run made before they were).
 */
function costLine(report: RunReport): string {
  const simulators = `cost: simulators ${usageText(report.usage)}`;
  const { judgeUsage } = report;
  if (judgeUsage === null) return `${simulators}; the judge's calls were not recorded`;
  const spent = judgeUsage.inputTokens + judgeUsage.outputTokens > 0 || judgeUsage.costUsd !== 0;
  return spent ? `${simulators}; judge ${usageText(judgeUsage, 'judging')}` : simulators;
}

/**
 * A pairwise judge's verdicts, which the table's overall (a content score) does not show: the
 * first simulator's win share against each other one and that one's against it.
 */
function pairwiseLines(sims: readonly SimReport[]): string[] {
  const [first, ...others] = sims;
  if (first === undefined) return [];
  return others.flatMap((other) => {
    const mine = first.byMetric[`judge:pairwise:${other.sim}`];
    if (mine === undefined) return [];
    const theirs = other.byMetric[`judge:pairwise:${first.sim}`] ?? null;
    return [
      `pairwise: ${simLabel(first.sim)} ${fixed(mine)} vs ${simLabel(other.sim)} ${fixed(theirs)} (the judge's win shares, 0-100, a tie counting half)`,
    ];
  });
}

/** What a Turing or pairwise judge answered by side, as the run page says it (a warning when it prefers one). */
function sidesNote(sides: JudgeSides | null): string[] {
  const said = sides === null ? null : judgeSidesText(sides);
  return said === null ? [] : [`${said.preference ? 'warning' : 'note'}: ${said.text}`];
}

/**
 * The human output: a line per simulator with its items, then the run page's columns for the
 * score its page opens on (overall, macro, each task) on a 0-100 scale, then its failed units. The
 * figures are the cells of `board`, the run's leaderboard as the page and `bench leaderboard` read
 * it (`cellsFromAggregates` in packages/bench computes every mean, macro included): the table shows
 * them and computes none. The score is the page's too (`openingSelector`): the run's Overall, or
 * the content score when a judge's Overall has no verdict at all, whose rows would read 0 items.
 */
export function reportTable(report: RunReport, board: Pick<Leaderboard, 'run' | 'cells'>): string {
  const { cells } = board;
  const overall = scoreKey(overallSelector(board.run));
  const metric = scoreKey(openingSelector(board.run, cells));
  const shown = cells.filter((cell) => scoreKey(cell) === metric);
  // Overall and macro even before anything is scored (a run canceled at once), as before.
  const tasks = [...new Set(['overall', 'macro', ...shown.map((cell) => cell.task)])].toSorted(
    (a, b) => taskOrder(a) - taskOrder(b) || compareText(a, b),
  );
  const cellAt = (sim: string, task: string) =>
    shown.find((cell) => cell.sim === sim && cell.task === task);
  const header = ['sim', 'items', ...tasks, 'failed'];
  const rows = report.sims.map((sim: SimReport) => [
    simLabel(sim.sim),
    String(cellAt(sim.sim, 'overall')?.n ?? 0),
    ...tasks.map((task) => fixed(cellAt(sim.sim, task)?.mean ?? null)),
    String(sim.failed),
  ]);
  return [
    `bench ${report.bench} v${report.benchVersion}, run ${report.run} (${report.status}); overall = ${metric}` +
      `${metric === overall ? '' : ` (${overall} has no verdict)`}, 0-100`,
    ...alignedRows([header, ...rows], 1),
    ...simNotes(report.sims.map((sim) => sim.sim)),
    ...failedNote(report),
    ...report.judgeGaps.map(
      (gap) =>
        `note: ${gap.sim}: the judge gave no verdict on ${formatUnits(gap.unreadable)} of ${formatUnits(gap.asked)} items (judge:${gap.metric}), whose judge scores are missing ("terrarium bench retry ${report.run}" asks again); first error: ${gap.example}`,
    ),
    ...pairwiseLines(report.sims),
    ...sidesNote(report.judgeSides),
    costLine(report),
    '',
  ].join('\n');
}
