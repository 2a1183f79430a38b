import { startBenchWorkers, type BenchWorkers } from '@terrarium/api';
import { openStore, removeServerInfo, writeServerInfo, type Store } from '@terrarium/db';
import type { BenchManifest, BenchRun, ImportReport } from '@terrarium/schema';
import { loadDemoData, startDemoBench } from './demo-data';
import { startServer, type RunningServer } from './start-server';

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
}

export interface ServedTerrarium extends RunningServer {
  store: Store;
  /** One report per demo dataset loaded (empty when the store already had data). */
  demoReports: ImportReport[];
  /** The demo bench and its run, built on the first start with the demo data. */
  demoBench: { bench: BenchManifest; run: BenchRun } | null;
}

/**
 * Opens the store (an embedded folder is locked to this process), serves it, and advertises the URL
 * in the folder so that CLI commands go through this server instead of opening the folder again.
 * `close()` undoes all of it in reverse.
 */
export async function serveTerrarium(options: ServeOptions): Promise<ServedTerrarium> {
  const embedded = !options.databaseUrl;
  const store = await openStore(
    options.databaseUrl ? { databaseUrl: options.databaseUrl } : { dataDir: options.dataDir },
  );
  let workers: BenchWorkers | undefined;
  try {
    const demoReports = options.demo ? await loadDemoData(store, options.demoDir) : [];
    workers = await startBenchWorkers(store, {
      concurrency: options.workers ?? 2,
      // The server's own simulators: model folders it lists, hosts on its allowlist.
      anyOnnxPath: false,
    });
    const demoBench =
      demoReports.length > 0 ? await startDemoBench(store, workers.runner, demoReports) : null;
    const server = await startServer({
      benchRunner: workers.runner,
      store,
      host: options.host,
      port: options.port,
      webDist: options.webDist,
      dataDir: embedded ? options.dataDir : undefined,
    });
    if (embedded) await writeServerInfo(options.dataDir, { url: server.url, pid: process.pid });
    return {
      url: server.url,
      store,
      demoReports,
      demoBench,
      close: async () => {
        if (embedded) await removeServerInfo(options.dataDir);
        await server.close();
        await workers?.stop();
        await store.close();
      },
    };
  } catch (error) {
    await workers?.stop().catch(() => {});
    await store.close();
    throw error;
  }
}
