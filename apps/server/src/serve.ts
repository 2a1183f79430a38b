import { join } from 'node:path';
import {
  startBenchWorkers,
  startCurriculumWorkers,
  startImportWorkers,
  type BenchWorkers,
  type CurriculumJobs,
  type ImportJobs,
  type PromptFolder,
} from '@terrarium/api';
import { openStore, removeServerInfo, writeServerInfo, type Store } from '@terrarium/db';
import type { BenchManifest, BenchRun, ImportReport } from '@terrarium/schema';
import { loadDemoData, startDemoBench } from './demo-data';
import { isLoopbackAddress } from './bind-address';
import { ensureProgramToken, TOKEN_ENV, tokenFromEnv, TokenError } from './program-token';
import { DEFAULT_HOST, startServer, type RunningServer } from './start-server';

export interface ServeOptions {
  /** Embedded data folder; ignored when `databaseUrl` is set. */
  dataDir: string;
  databaseUrl?: string;
  host?: string;
  port?: number;
  webDist?: string;
  /** Load the bundled demo datasets when the store has none. */
  demo?: boolean;
  demoDir?: string;
  /**
   * Bench-run chunk jobs this server works on at once (default 2). 0: it only enqueues, and
   * `terrarium worker` processes on a shared PostgreSQL do the work.
   */
  workers?: number;
  /** More Host names to answer for (`--allowed-host`). */
  allowedHosts?: readonly string[];
  /** Default `process.env`; read for TERRARIUM_TOKEN. */
  env?: NodeJS.ProcessEnv;
  /**
   * `serve --prompts DIR`: bench runs started here record this folder and speak to endpoints and
   * judges with the official protocol; /v1 and simulate too.
   */
  prompts?: PromptFolder | null;
}

export interface ServedTerrarium extends RunningServer {
  store: Store;
  /** One report per demo dataset loaded (empty when the store already had data). */
  demoReports: ImportReport[];
  /** The demo bench and its run, built on the first start with the demo data. */
  demoBench: { bench: BenchManifest; run: BenchRun } | null;
  /** The program token: `Authorization: Bearer <token>`. */
  token: string;
}

/**
 * Opens the store (an embedded folder is locked to this process), serves it, and advertises the URL
 * in the folder so that CLI commands go through this server instead of opening the folder again.
 * `close()` undoes all of it in reverse.
 */
export async function serveTerrarium(options: ServeOptions): Promise<ServedTerrarium> {
  const embedded = !options.databaseUrl;
  const env = options.env ?? process.env;
  const host = options.host ?? DEFAULT_HOST;
  if (!isLoopbackAddress(host) && tokenFromEnv(env) === undefined) {
    throw new TokenError(
      `refusing to listen on ${host} without a token: anyone who can reach it could drive it. ` +
        `Set ${TOKEN_ENV} to a long random secret (e.g. \`openssl rand -hex 32\`) and give it to ` +
        'your programs, or bind 127.0.0.1',
    );
  }
  const token = await ensureProgramToken(options.dataDir, env);
  const store = await openStore(
    options.databaseUrl ? { databaseUrl: options.databaseUrl } : { dataDir: options.dataDir },
  );
  let workers: BenchWorkers | undefined;
  let curriculumJobs: CurriculumJobs | undefined;
  let importJobs: ImportJobs | undefined;
  try {
    const demoReports = options.demo ? await loadDemoData(store, options.demoDir) : [];
    workers = await startBenchWorkers(store, {
      concurrency: options.workers ?? 2,
      // The server's own simulators: model folders it lists, hosts on its allowlist.
      anyOnnxPath: false,
    });
    const demoBench =
      demoReports.length > 0 ? await startDemoBench(store, workers.runner, demoReports) : null;
    // Curriculum runs share the bench runs' queue; unfinished ones continue from their checkpoint.
    curriculumJobs = await startCurriculumWorkers(store, workers.queue, { anyOnnxPath: false });
    // Imports too; one interrupted by a crash continues from its last stored group.
    importJobs = await startImportWorkers(workers.queue);
    const server = await startServer({
      benchRunner: workers.runner,
      curriculumJobs,
      importJobs,
      // Uploads wait in the data folder, so an import interrupted by a crash can resume.
      spoolDir: join(options.dataDir, 'imports'),
      store,
      host,
      port: options.port,
      token,
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      webDist: options.webDist,
      dataDir: embedded ? options.dataDir : undefined,
      prompts: options.prompts ?? null,
    });
    if (embedded) await writeServerInfo(options.dataDir, { url: server.url, pid: process.pid });
    return {
      url: server.url,
      otherUrls: server.otherUrls,
      store,
      demoReports,
      demoBench,
      token,
      close: async () => {
        if (embedded) await removeServerInfo(options.dataDir);
        await server.close();
        await importJobs?.stop();
        await curriculumJobs?.stop();
        await workers?.stop();
        await store.close();
      },
    };
  } catch (error) {
    await importJobs?.stop().catch(() => {});
    await curriculumJobs?.stop().catch(() => {});
    await workers?.stop().catch(() => {});
    await store.close();
    throw error;
  }
}
