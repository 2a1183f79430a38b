import { openStore, removeServerInfo, writeServerInfo, type Store } from '@terrarium/db';
import type { ImportReport } from '@terrarium/schema';
import { loadDemoData } from './demo-data';
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
}

export interface ServedTerrarium extends RunningServer {
  store: Store;
  /** One report per demo dataset loaded (empty when the store already had data). */
  demoReports: ImportReport[];
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
  try {
    const demoReports = options.demo ? await loadDemoData(store, options.demoDir) : [];
    const server = await startServer({
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
      close: async () => {
        if (embedded) await removeServerInfo(options.dataDir);
        await server.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
