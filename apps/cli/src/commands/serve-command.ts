import { serveTerrarium, DEFAULT_HOST, TokenError } from '@terrarium/server';
import { CliError } from '../cli-error';
import { promptsOption } from './bench-command';
import { dataDirFor, databaseUrlFromEnv, type GlobalOptions } from '../connect';

export const DEFAULT_PORT = 4317;

export interface ServeCommandOptions extends GlobalOptions {
  host?: string;
  port?: number;
  demo?: boolean;
  /** More Host names to answer for (repeatable `--allowed-host`). */
  allowedHost?: string[];
  /** A folder laid out like the official AgentWorldBench `prompts/`: bench runs, /v1 and simulate. */
  prompts?: string;
}

/** Serves until SIGINT or SIGTERM, then closes the server, the store and the folder's server info. */
export async function runServe(options: ServeCommandOptions): Promise<void> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  const prompts = await promptsOption(options.prompts);
  const served = await serveTerrarium({
    prompts,
    dataDir: dataDirFor(options),
    databaseUrl: databaseUrlFromEnv(),
    host,
    port,
    demo: options.demo,
    ...(options.allowedHost === undefined ? {} : { allowedHosts: options.allowedHost }),
  }).catch((error: unknown) => {
    if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
      throw new CliError(`port ${port} on ${host} is already in use; choose another with --port`);
    }
    if (error instanceof TokenError) throw new CliError(error.message);
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
  // Programs (CLI, trainers, eval scripts) send it; the browser on loopback needs nothing.
  process.stdout.write(`Program token: ${served.token} (send "Authorization: Bearer <token>")\n`);

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
