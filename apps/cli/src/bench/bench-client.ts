import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  agentWorldBenchLines,
  buildBenchFromDatasets,
  cancelRun,
  DEFAULT_BOOTSTRAP,
  deleteBench,
  deleteRun,
  importAgentWorldBench,
  BENCH_IMPORT_PATH,
  judgePairwise,
  leaderboard,
  promptFilesOf,
  report,
  listBenches,
  listRuns,
  getRun,
  resumeRun,
  retryFailedUnits,
  runResults,
  sftExport,
  startBenchWorkers,
  startRun,
  stopJudge,
  watchRun,
  type AppRouter,
  type BenchImportResult,
  type BenchWorkers,
  type BuildBenchInput,
  type DeletedBench,
  type DeletedRun,
  type RunReport,
  type SftExport,
  type StartRunInput,
} from '@terrarium/api';
import type { Store } from '@terrarium/db';
import {
  BenchImportResponse,
  missingVerdictCount,
  RUN_RESULTS_PATH,
  type BenchManifest,
  type BenchRun,
  type BenchRunListing,
  type BenchSummary,
  type Leaderboard,
} from '@terrarium/schema';
import { createTRPCClient, httpLink } from '@trpc/client';
import { CliError, type FieldFlags } from '../cli-error';
import { serverFailure } from '../server-client';

/** A file's lines (LF or CRLF) as they are read, so a large bench file is never held whole. */
async function* fileLines(file: string): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) yield line;
}

/**
 * What the bench commands need, whether the data is in a store this process opened or behind a
 * running server (which owns an embedded folder). One interface, so each command is written once.
 */
export interface BenchClient {
  /** The server that runs the benches (its URL), or null when this process does. */
  readonly server: string | null;
  list(): Promise<BenchSummary[]>;
  build(input: BuildBenchInput): Promise<BenchManifest>;
  /** AgentWorldBench JSONL files as one bench; a local store reads them line by line. */
  importFiles(input: {
    name: string;
    files: ReadonlyArray<{ fileName: string; path: string }>;
  }): Promise<BenchImportResult>;
  exportAgentWorldBench(name: string, version?: number): AsyncIterable<string>;
  exportSft(input: {
    bench: string;
    version?: number;
    datasets: string[];
    includeReasoning: boolean;
  }): Promise<SftExport>;
  /** Starts the run and follows it to its end, reporting each change. */
  run(input: StartRunInput, onProgress: (run: BenchRun) => void): Promise<BenchRun>;
  /** Resumes a canceled run and follows it to its end, as `run` does. */
  resume(runId: string, onProgress: (run: BenchRun) => void): Promise<BenchRun>;
  /** Predicts the failed units of an ended run again and follows it to its end, as `run` does. */
  retryFailed(runId: string, onProgress: (run: BenchRun) => void): Promise<BenchRun>;
  cancel(runId: string): Promise<BenchRun>;
  /** Stops an asking of the run's judge under way in the process that holds the store. */
  stopJudge(runId: string): Promise<{ stopped: boolean; missing: number }>;
  deleteRun(runId: string): Promise<DeletedRun>;
  deleteBench(name: string, version: number): Promise<DeletedBench>;
  report(runId: string): Promise<RunReport>;
  /**
   * Every cell of the run's leaderboard with its 95% interval (`intervals` says if they are
   * ready); `bootstrap` 0 for the means alone, which starts no interval computation.
   */
  leaderboard(runId: string, bootstrap?: number): Promise<Leaderboard>;
  /** Newest first; only the runs of one bench when named. */
  runs(bench?: string): Promise<BenchRunListing[]>;
  /** The run's results as JSON lines (`RunResult`), read as they stream. */
  results(runId: string, options?: { history?: boolean }): AsyncIterable<string>;
  /**
   * Pairwise judging of the pairs never asked, once the run is done (it needs every simulator's
   * prediction); pairs asked in vain are a retry's to ask again.
   */
  judgePairwise(runId: string): Promise<{ judged: number }>;
  /** Verdicts the run's judge owes now (`missingVerdictCount`), read without intervals. */
  owedVerdicts(runId: string): Promise<number>;
  close(): Promise<void>;
}

function owedOn(board: Leaderboard): number {
  return missingVerdictCount(board.run, board.judgeGaps, board.pairsNotAsked);
}

/** Runs benches in this process: a worker of its own takes the run's jobs from the store's queue. */
export function localBenchClient(store: Store, options: { workers: number }): BenchClient {
  let workers: Promise<BenchWorkers> | null = null;
  const startWorkers = () =>
    (workers ??= startBenchWorkers(store, {
      concurrency: options.workers,
      anyOnnxPath: true,
    }));
  async function follow(started: BenchRun, onProgress: (run: BenchRun) => void) {
    let last = started;
    for await (const run of watchRun({ store }, started.id, undefined)) {
      last = run;
      onProgress(run);
    }
    return last;
  }
  return {
    server: null,
    list: () => listBenches({ store }),
    build: (input) => buildBenchFromDatasets({ store }, input),
    importFiles: (input) =>
      importAgentWorldBench(store, {
        name: input.name,
        files: input.files.map((file) => ({
          fileName: file.fileName,
          lines: fileLines(file.path),
        })),
      }),
    exportAgentWorldBench: (name, version) => agentWorldBenchLines(store, name, version),
    exportSft: (input) => sftExport(store, input),
    async run(input, onProgress) {
      const { runner } = await startWorkers();
      return follow(await startRun({ store, benchRunner: runner }, input), onProgress);
    },
    async resume(runId, onProgress) {
      const { runner } = await startWorkers();
      return follow(await resumeRun({ store, benchRunner: runner }, runId), onProgress);
    },
    async retryFailed(runId, onProgress) {
      const { runner } = await startWorkers();
      return follow(await retryFailedUnits({ store, benchRunner: runner }, runId), onProgress);
    },
    cancel: (runId) => cancelRun({ store }, runId),
    stopJudge: (runId) => stopJudge({ store }, runId),
    deleteRun: (runId) => deleteRun({ store }, runId),
    deleteBench: (name, version) => deleteBench({ store }, { name, version }),
    report: (runId) => report({ store }, runId),
    leaderboard: (runId, bootstrap = DEFAULT_BOOTSTRAP) => leaderboard({ store }, runId, bootstrap),
    runs: (bench) => listRuns({ store }, bench),
    async *results(runId, asked) {
      for await (const result of runResults(store, await getRun({ store }, runId), asked)) {
        yield JSON.stringify(result);
      }
    },
    judgePairwise: (runId) => judgePairwise({ store }, runId, { pairs: 'not-asked' }),
    owedVerdicts: async (runId) => owedOn(await leaderboard({ store }, runId, 0)),
    async close() {
      if (workers !== null) await (await workers).stop();
    },
  };
}

function refusalMessage(body: unknown): string | null {
  const error = typeof body === 'object' && body !== null ? Reflect.get(body, 'error') : null;
  const message =
    typeof error === 'object' && error !== null ? Reflect.get(error, 'message') : null;
  return typeof message === 'string' ? message : null;
}

/** The files' bytes one after another, read from disk as the upload goes. */
async function* concatenated(paths: readonly string[]): AsyncGenerator<Uint8Array> {
  for (const file of paths) {
    for await (const chunk of createReadStream(file)) {
      if (chunk instanceof Uint8Array) yield chunk;
    }
  }
}

/**
 * `bench import` through a running server: the files streamed in one request to its bench import
 * route (each file's name and size in the URL), so a folder is one bench, read as it arrives.
 */
async function uploadBenchFiles(
  url: string,
  token: string,
  input: { name: string; files: ReadonlyArray<{ fileName: string; path: string }> },
): Promise<BenchImportResult> {
  const params = new URLSearchParams({ name: input.name });
  for (const file of input.files) {
    params.append('file', file.fileName);
    params.append('size', String((await stat(file.path)).size));
  }
  let response: Response;
  try {
    response = await fetch(`${url}${BENCH_IMPORT_PATH}?${params.toString()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: ReadableStream.from(concatenated(input.files.map((file) => file.path))),
      duplex: 'half',
    });
  } catch (error) {
    throw new CliError(
      `cannot reach the server at ${url}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CliError(
      `the server at ${url} answered HTTP ${response.status}: ${text.slice(0, 300)}`,
    );
  }
  if (!response.ok) {
    throw new CliError(
      `the server at ${url} refused: ${refusalMessage(body) ?? `HTTP ${response.status}`}`,
    );
  }
  return BenchImportResponse.parse(body);
}

/**
 * The lines of a JSON-lines download from the server, as they arrive. A refusal (404, 403) is
 * the server's own words; a body cut short (the server failed mid-way) throws, never ends early.
 */
async function* downloadLines(url: string, token: string, route: string): AsyncGenerator<string> {
  let response: Response;
  try {
    response = await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    throw new CliError(
      `cannot reach the server at ${url}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!response.ok || response.body === null) {
    const text = await response.text();
    let message: string | null = null;
    try {
      message = refusalMessage(JSON.parse(text));
    } catch {
      // Not our JSON: the status says it.
    }
    throw new CliError(`the server at ${url} refused: ${message ?? `HTTP ${response.status}`}`);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let rest = '';
  try {
    for await (const chunk of response.body) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop() ?? '';
      yield* lines;
    }
  } catch (error) {
    throw new CliError(
      `the download from ${url} broke off: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  rest += decoder.decode();
  if (rest !== '') {
    throw new CliError(`the download from ${url} ended inside a line: it is incomplete`);
  }
}

/**
 * The bench procedures' fields in the bench commands' words: a run is their argument, and a bench
 * is `--bench` to some commands and `--name` to others, so its field is left out (`no bench "x"
 * (benches: …)` says enough); the rest are flags.
 */
export const BENCH_FLAGS: FieldFlags = {
  runId: '',
  bench: '',
  sims: '--sim',
  sim: '--sim',
  split: '--split',
  mode: '--mode',
  judge: '--judge',
  datasets: '--dataset',
};

/** Goes through a running `terrarium serve`; its workers run the bench. */
export function remoteBenchClient(url: string, token: string): BenchClient {
  const trpc = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
  });
  const call = <T>(promise: Promise<T>) =>
    promise.catch((error: unknown) => {
      throw serverFailure(error, url, '', BENCH_FLAGS);
    });
  async function follow(started: BenchRun, onProgress: (run: BenchRun) => void) {
    onProgress(started);
    // Polling: Node 20 has no EventSource for tRPC's subscription link.
    for (;;) {
      const run = await trpc.bench.run.query({ runId: started.id }).catch((error: unknown) => {
        // The run is the server's job: it goes on without this watcher, and after a restart.
        throw serverFailure(
          error,
          url,
          `; run ${started.id} stays in the server's queue and goes on when it is back (\`terrarium bench runs\` shows it)`,
        );
      });
      onProgress(run);
      if (run.status !== 'queued' && run.status !== 'running') return run;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return {
    server: url,
    list: () => call(trpc.bench.list.query()),
    build: (input) => call(trpc.bench.build.mutate(input)),
    importFiles: (input) => uploadBenchFiles(url, token, input),
    async *exportAgentWorldBench(name, version) {
      const lines = await call(
        trpc.bench.exportLines.query({ name, ...(version === undefined ? {} : { version }) }),
      );
      yield* lines;
    },
    exportSft: (input) => call(trpc.bench.exportSft.mutate(input)),
    async run(input, onProgress) {
      const { prompts, ...rest } = input;
      // The folder goes with the run (the server records it), so `--prompts` works remotely too.
      const started = await call(
        trpc.bench.startRun.mutate(
          prompts === undefined
            ? rest
            : { ...rest, prompts: prompts === null ? null : promptFilesOf(prompts) },
        ),
      );
      return follow(started, onProgress);
    },
    resume: async (runId, onProgress) =>
      follow(await call(trpc.bench.resumeRun.mutate({ runId })), onProgress),
    retryFailed: async (runId, onProgress) =>
      follow(await call(trpc.bench.retryFailed.mutate({ runId })), onProgress),
    cancel: (runId) => call(trpc.bench.cancelRun.mutate({ runId })),
    stopJudge: (runId) => call(trpc.bench.stopJudge.mutate({ runId })),
    deleteRun: (runId) => call(trpc.bench.deleteRun.mutate({ runId })),
    deleteBench: (name, version) => call(trpc.bench.delete.mutate({ name, version })),
    report: (runId) => call(trpc.bench.report.query({ runId })),
    leaderboard: (runId, bootstrap = DEFAULT_BOOTSTRAP) =>
      call(trpc.bench.leaderboard.query({ runId, bootstrap })),
    runs: (bench) => call(trpc.bench.runs.query(bench === undefined ? {} : { bench })),
    results: (runId, options) =>
      downloadLines(
        url,
        token,
        `${RUN_RESULTS_PATH}?run=${encodeURIComponent(runId)}${options?.history === true ? '&history=1' : ''}`,
      ),
    judgePairwise: (runId) => call(trpc.bench.judgePairwise.mutate({ runId, pairs: 'not-asked' })),
    owedVerdicts: async (runId) =>
      owedOn(await call(trpc.bench.leaderboard.query({ runId, bootstrap: 0 }))),
    async close() {},
  };
}
