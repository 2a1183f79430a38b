import { serveTerrarium, DEFAULT_HOST } from '@terrarium/server';
import { CliError } from '../cli-error';
import { dataDirFor, databaseUrlFromEnv, type GlobalOptions } from '../connect';

export const DEFAULT_PORT = 4317;

export interface ServeCommandOptions extends GlobalOptions {
  host?: string;
  port?: number;
  demo?: boolean;
}

/** Serves until SIGINT or SIGTERM, then closes the server, the store and the folder's server info. */
export async function runServe(options: ServeCommandOptions): Promise<void> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  const served = await serveTerrarium({
    dataDir: dataDirFor(options),
    databaseUrl: databaseUrlFromEnv(),
    host,
    port,
    demo: options.demo,
  }).catch((error: unknown) => {
    if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
      throw new CliError(`port ${port} on ${host} is already in use; choose another with --port`);
    }
    throw error;
  });
  for (const report of served.demoReports) {
    process.stderr.write(
      `Loaded demo dataset "${report.dataset}": ${report.trajectories} trajectories, ${report.transitions} transitions\n`,
    );
  }
  if (served.demoBench !== null) {
    const { bench, run } = served.demoBench;
    process.stderr.write(
      `Built demo bench "${bench.name}" v${bench.version}: ${bench.itemCount} items; ` +
        `${run.sims.join(' and ')} are scoring it in the background (Benches page)\n`,
    );
  }
  process.stdout.write(`Terrarium is running at ${served.url}\n`);

  let closing = false;
  const shutDown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`${signal}: shutting down\n`);
    served.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutDown);
  process.on('SIGTERM', shutDown);
}
