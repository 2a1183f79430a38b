import { DataDirBusyError, readServerInfo } from '@terrarium/db';
import { localOwnerLink } from '@terrarium/api';
import {
  DEFAULT_HOST,
  isLoopbackAddress,
  serveTerrarium,
  TOKEN_ENV,
  tokenFromEnv,
  TokenError,
  type ServedTerrarium,
} from '@terrarium/server';
import { plural } from '@terrarium/schema';
import { CliError } from '../cli-error';
import { promptsOption } from './bench-command';
import { dataDirFor, databaseUrlFromEnv, programTokenFor, type GlobalOptions } from '../connect';
import { serverStatus } from '../server-client';

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

/** How long `serve` waits for a server that is shutting down to let go of the data folder. */
const RELEASE_WAIT_MS = 20_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is another user's.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/**
 * The folder is held: by a server that serves it (said at once, with its URL), or by a process on
 * its way out, such as the server stopped a moment ago, whose exit is waited for.
 */
async function waitForRelease(error: DataDirBusyError): Promise<void> {
  const info = await readServerInfo(error.dataDir);
  const token = info === null ? null : await programTokenFor(error.dataDir);
  if (info !== null && info.pid === error.pid && token !== null) {
    if ((await serverStatus(info.url, error.dataDir, token)) === 'serving')
      throw new CliError(
        `a Terrarium server already serves ${error.dataDir} at ${info.url} (pid ${error.pid}); stop it first, or choose another --data-dir`,
      );
  }
  process.stderr.write(`waiting for pid ${error.pid} to let go of ${error.dataDir}…\n`);
  const deadline = Date.now() + RELEASE_WAIT_MS;
  while (alive(error.pid)) {
    if (Date.now() > deadline)
      throw new CliError(
        `the data folder ${error.dataDir} is still held by pid ${error.pid} after ${RELEASE_WAIT_MS / 1000} s; stop that process, or choose another --data-dir`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How people get in: the owner's link on loopback, other machines' URLs, the first account. */
async function accessLines(served: ServedTerrarium, host: string): Promise<string[]> {
  const accounts = await served.store.countUsers();
  const lines: string[] = [];
  if (isLoopbackAddress(host) && accounts === 0) {
    lines.push(
      `Open it in your browser with this link, which logs you in (keep it to yourself): ${localOwnerLink(served.url, served.token)}`,
    );
  }
  if (served.otherUrls.length > 0) {
    lines.push(`Other machines reach it at: ${served.otherUrls.join(', ')}`);
  }
  if (!isLoopbackAddress(host) && accounts === 0) {
    lines.push(
      'No accounts yet, and here everyone logs in: make the first researcher with ' +
        '`pnpm terrarium users add NAME --role researcher` (TERRARIUM_TOKEN set as for serve)',
    );
  }
  return lines;
}

/** Serves until SIGINT or SIGTERM, then closes the server, the store and the folder's server info. */
/** Where this server keeps what it keeps (walk 47: the log named no folder, the token's included). */
function dataFolderLine(dataDir: string): string {
  const held = [
    databaseUrlFromEnv() === undefined ? 'the store' : null,
    (process.env['TERRARIUM_TOKEN'] ?? '') === '' ? 'the program token' : null,
  ].filter((what) => what !== null);
  return `Data folder: ${dataDir}${held.length === 0 ? '' : ` (${held.join(' and ')})`}`;
}

export async function runServe(options: ServeCommandOptions): Promise<void> {
  const host = options.host ?? DEFAULT_HOST;
  for (const name of options.allowedHost ?? []) {
    // Compared whole with the Host header: a pattern would match nothing, silently (walk 41).
    if (!/^(?:\[[0-9a-fA-F:.]+\](?::\d+)?|[0-9a-fA-F:.]+|[A-Za-z0-9.-]+(?::\d+)?)$/.test(name)) {
      throw new CliError(
        `--allowed-host ${name}: expected one host name or address, as the Host header carries it without its port (no wildcards: repeat --allowed-host for each name)`,
      );
    }
  }
  const port = options.port ?? DEFAULT_PORT;
  const prompts = await promptsOption(options.prompts);
  const serve = () =>
    serveTerrarium({
      prompts,
      dataDir: dataDirFor(options),
      databaseUrl: databaseUrlFromEnv(),
      host,
      port,
      demo: options.demo,
      ...(options.allowedHost === undefined ? {} : { allowedHosts: options.allowedHost }),
    });
  const served = await serve()
    .catch(async (error: unknown) => {
      if (!(error instanceof DataDirBusyError)) throw error;
      await waitForRelease(error);
      return serve();
    })
    .catch((error: unknown) => {
      if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
        throw new CliError(`port ${port} on ${host} is already in use; choose another with --port`);
      }
      if (error instanceof TokenError || error instanceof DataDirBusyError)
        throw new CliError(error.message);
      throw error;
    });
  // Before the URL is printed: whoever reads it may stop the server at once, and a signal with no
  // handler yet would kill it without closing the store.
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
  for (const report of served.demoReports) {
    process.stderr.write(
      `Loaded demo dataset "${report.dataset}": ${plural(report.trajectories, 'trajectory', 'trajectories')}, ${plural(report.transitions, 'transition')}\n`,
    );
  }
  if (served.demoBench !== null) {
    const { bench, run } = served.demoBench;
    process.stderr.write(
      `Built demo bench "${bench.name}" v${bench.version}: ${plural(bench.itemCount, 'item')}; ` +
        `${run.sims.join(' and ')} are scoring it in the background (Benches page)\n`,
    );
  }
  process.stdout.write(`Terrarium is running at ${served.url}\n`);
  for (const line of await accessLines(served, host)) process.stdout.write(`${line}\n`);
  process.stdout.write(`${dataFolderLine(dataDirFor(options))}\n`);
  // Programs (CLI, trainers, eval scripts) send it. One the user set is not echoed: they have it,
  // and this log is often collected (journald, CI); a generated one is printed, as they need it.
  const token =
    tokenFromEnv(process.env) === undefined ? served.token : `the one set in ${TOKEN_ENV}`;
  process.stdout.write(`Program token: ${token} (send "Authorization: Bearer <token>")\n`);
}
