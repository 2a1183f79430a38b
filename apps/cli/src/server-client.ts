import { createReadStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import type { DataFile } from '@terrarium/api';
import type { AppRouter } from '@terrarium/api';
import {
  apiErrorMessage,
  DatasetSummary,
  ImportJobView,
  type SourceFormat,
} from '@terrarium/schema';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { CliError, inCliWords, type FieldFlags } from './cli-error';

function servedDataDir(health: unknown): string | null {
  if (typeof health !== 'object' || health === null) return null;
  if (!('ok' in health) || health.ok !== true) return null;
  return 'dataDir' in health && typeof health.dataDir === 'string' ? health.dataDir : null;
}

/** How long the CLI waits for a server's health answer before saying it did not answer. */
export const HEALTH_TIMEOUT_MS = 5000;

/**
 * Whether a Terrarium server answers at `url` and serves `dataDir` (`serving`), answers but not
 * for this folder or this token (`other`: a stale server-info file whose port went to another
 * process), or gives no answer in time (`silent`: busy, or gone).
 */
export type ServerStatus = 'serving' | 'other' | 'silent';

export async function serverStatus(
  url: string,
  dataDir: string,
  token: string,
): Promise<ServerStatus> {
  let response: Response;
  try {
    // The health report names the folder only to an authenticated caller.
    response = await fetch(new URL('/api/health', url), {
      headers: authHeaders(token),
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
  } catch {
    return 'silent';
  }
  if (!response.ok) return 'other';
  const served = servedDataDir(await response.json().catch(() => null));
  return served !== null && path.resolve(served) === path.resolve(dataDir) ? 'serving' : 'other';
}

/** `Authorization: Bearer <token>`: how every CLI request proves it comes from this user. */
export function authHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The server's import procedures, called with the program token. */
function importsClient(serverUrl: string, token: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${serverUrl}/trpc`, headers: authHeaders(token) })],
  }).imports;
}

/** The server's newest import jobs (`imports.list`), as its Import page reads them. */
export async function fetchImportJobs(serverUrl: string, token: string): Promise<ImportJobView[]> {
  try {
    return await importsClient(serverUrl, token).list.query({ limit: 200 });
  } catch (error) {
    throw serverFailure(error, serverUrl);
  }
}

export async function fetchDatasets(serverUrl: string, token: string): Promise<DatasetSummary[]> {
  const response = await fetch(new URL('/api/datasets', serverUrl), {
    headers: authHeaders(token),
  });
  if (!response.ok) throw new CliError(`the server at ${serverUrl} answered ${response.status}`);
  return DatasetSummary.array().parse(await response.json());
}

/** The `message` of an `{"error":{"message"}}` body (the server's routes and tRPC answer errors so). */
/** A refusal's message, as the server gave it. */
export function errorMessageOf(body: unknown): string {
  return apiErrorMessage(body) ?? 'no reason given';
}

/**
 * Streams one file to `POST /api/import` of a running server, as the Import page does: the server
 * stores the upload, answers with the import's job and imports it as a job of its own, which goes
 * on without this client and after a restart of the server (before, the upload was the import: a
 * server stopped midway dropped it, and so did a killed CLI). `onBytes` sees each chunk sent.
 */
export function uploadFile(
  serverUrl: string,
  file: DataFile,
  options: {
    dataset: string;
    format?: SourceFormat;
    token: string;
    onBytes: (byteLength: number) => void;
  },
): Promise<ImportJobView> {
  const target = new URL('/api/import', serverUrl);
  target.searchParams.set('dataset', options.dataset);
  target.searchParams.set('file', file.name);
  target.searchParams.set('background', '1');
  if (options.format) target.searchParams.set('format', options.format);
  return new Promise((resolve, reject) => {
    const upload = httpRequest(
      target,
      {
        method: 'POST',
        headers: {
          ...authHeaders(options.token),
          'content-type': 'application/octet-stream',
          'content-length': String(file.size),
        },
      },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('error', reject);
        response.on('end', () => {
          const body: unknown = parseJson(Buffer.concat(parts).toString('utf8'));
          if (response.statusCode === 202) {
            // `{ job }`: the import's job, once the upload is stored.
            const queued = ImportJobView.safeParse(
              typeof body === 'object' && body !== null && 'job' in body ? body.job : null,
            );
            if (queued.success) resolve(queued.data);
            else reject(new CliError(`unexpected answer from ${target.origin}/api/import`));
            return;
          }
          reject(
            new CliError(
              `the server refused ${file.name} (${response.statusCode ?? '?'}): ${errorMessageOf(body)}`,
            ),
          );
        });
      },
    );
    let sent = 0;
    upload.on('error', (error) =>
      reject(
        new CliError(
          sent < file.size
            ? `the server at ${serverUrl} stopped answering while ${file.name} was uploading (${error.message}): nothing of it was kept`
            : // All sent: the server may have stored it and made its job before the answer was lost.
              `the server at ${serverUrl} stopped answering once ${file.name} was sent (${error.message}): it may have taken it (its Import page shows it)`,
        ),
      ),
    );
    const source = createReadStream(file.path);
    source.on('data', (chunk) => {
      sent += chunk.length;
      options.onBytes(chunk.length);
    });
    source.on('error', (error) => {
      upload.destroy(error);
      reject(error);
    });
    source.pipe(upload);
  });
}

/**
 * One import job of the server, or `'away'` when the server gave no answer (stopped, restarting);
 * a refusal (a token it does not take, no such job) throws, in the server's words.
 */
export async function fetchImportJob(
  serverUrl: string,
  token: string,
  jobId: string,
): Promise<ImportJobView | 'away'> {
  try {
    return await importsClient(serverUrl, token).get.query({ jobId });
  } catch (error) {
    if (error instanceof TRPCClientError && (error.data === undefined || error.data === null)) {
      return 'away';
    }
    throw serverFailure(error, serverUrl);
  }
}

/**
 * Cancels an import job of the server, as the Import page's Cancel: whether this call stopped it
 * (nothing of it is kept) and the job as it is now (it may have ended already).
 */
export async function cancelImportJob(
  serverUrl: string,
  token: string,
  jobId: string,
  signal: AbortSignal,
): Promise<{ canceled: boolean; job: ImportJobView }> {
  try {
    return await importsClient(serverUrl, token).cancel.mutate({ jobId }, { signal });
  } catch (error) {
    throw serverFailure(error, serverUrl);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A failed call to the server in the user's words: a refusal carries the server's reason; a call
 * that never got an answer (the server stopped, the connection dropped) is said to be that, with
 * `after` telling what happens to the work meanwhile. Anything else is not a server failure.
 */
export function serverFailure(
  error: unknown,
  url: string,
  after = '',
  fields: FieldFlags = {},
): unknown {
  if (!(error instanceof TRPCClientError)) return error;
  // tRPC gives a refusal its `data` (code, HTTP status); a call with no answer has none.
  if (error.data === undefined || error.data === null)
    return new CliError(`lost the connection to the server at ${url} (${error.message})${after}`);
  return new CliError(`the server at ${url} refused: ${inCliWords(error.message, fields)}`);
}
