import {
  DataDirBusyError,
  openStore,
  readServerInfo,
  resolveDataDir,
  type Store,
} from '@terrarium/db';
import { readTokenFile, tokenFromEnv, TokenError } from '@terrarium/server';
import { fileSystemReason } from '@terrarium/api';
import { CliError } from './cli-error';
import { HEALTH_TIMEOUT_MS, serverStatus, type ServerStatus } from './server-client';

/** Where a command's data lives: a store this process opened, or a running server that owns it. */
export type DataTarget =
  | { kind: 'store'; store: Store; dataDir: string | null }
  | {
      kind: 'server';
      url: string;
      dataDir: string;
      /** The program token, sent as `Authorization: Bearer <token>` on every request. */
      token: string;
    };

export interface GlobalOptions {
  dataDir?: string;
}

export function databaseUrlFromEnv(): string | undefined {
  const url = process.env.DATABASE_URL;
  return url === undefined || url === '' ? undefined : url;
}

export function dataDirFor(options: GlobalOptions): string {
  return resolveDataDir(options.dataDir, process.env);
}

/**
 * Opens the store for a command. An embedded folder belongs to one process: when `terrarium serve`
 * holds it, the command goes through that server; when anything else holds it, the command stops
 * with a clear message instead of opening it a second time.
 */
export async function connect(options: GlobalOptions): Promise<DataTarget> {
  const databaseUrl = databaseUrlFromEnv();
  // A PostgreSQL server takes any number of clients: no folder to own, no server to go through.
  if (databaseUrl) return { kind: 'store', store: await openStore({ databaseUrl }), dataDir: null };

  const dataDir = dataDirFor(options);
  const server = await readServerInfo(dataDir);
  let status: ServerStatus | 'no token' = 'no token';
  if (server) {
    const token = await programTokenFor(dataDir);
    if (token !== null) {
      status = await serverStatus(server.url, dataDir, token);
      if (status === 'serving') return { kind: 'server', url: server.url, dataDir, token };
    }
  }
  try {
    return { kind: 'store', store: await openStore({ dataDir }), dataDir };
  } catch (error) {
    if (error instanceof DataDirBusyError && server !== null && error.pid === server.pid) {
      // Its own server holds the folder: say why this command could not go through it.
      throw new CliError(
        `the data folder ${dataDir} is held by its Terrarium server at ${server.url} (pid ${server.pid}), ` +
          (status === 'silent'
            ? `which did not answer within ${HEALTH_TIMEOUT_MS / 1000} s: it may be busy (a large import, a run's end); try again in a moment`
            : status === 'no token'
              ? `and there is no program token to reach it: set TERRARIUM_TOKEN to the token it printed`
              : `which refused this command's token: set TERRARIUM_TOKEN to the token it printed`),
      );
    }
    if (error instanceof DataDirBusyError) {
      throw new CliError(
        `the data folder ${dataDir} is in use by another process (pid ${error.pid}) that is not ` +
          'a Terrarium server; wait for it to finish or stop it, or choose another --data-dir',
      );
    }
    // A folder that cannot be read or written (a file in the store's place, a full or read-only
    // disk) is said in one line, not a stack.
    const reason = fileSystemReason(error);
    if (reason !== null) throw new CliError(`cannot open the store in ${dataDir}: ${reason}`);
    throw error;
  }
}

/**
 * The token to reach the server of `dataDir`: TERRARIUM_TOKEN, else the token file the server
 * wrote into the folder at its first start (readable only by the user who started it).
 */
export async function programTokenFor(dataDir: string): Promise<string | null> {
  try {
    return tokenFromEnv(process.env) ?? (await readTokenFile(dataDir));
  } catch (error) {
    if (error instanceof TokenError) throw new CliError(error.message);
    throw error;
  }
}

export async function disconnect(target: DataTarget): Promise<void> {
  if (target.kind === 'store') await target.store.close();
}
