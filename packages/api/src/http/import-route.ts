import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ImportJobRecord, Store } from '@terrarium/db';
import { runImportJob, type ImportJobs } from '@terrarium/jobs';
import { importExitCode, SourceFormat, type ImportReport } from '@terrarium/schema';
import { z } from 'zod';
import { fileSystemReason, isErrnoException } from '../file-system-reason';
import { importJobView } from '../imports/import-jobs-view';
import { INTERNAL_ERROR_MESSAGE } from '../trpc';
import { fieldIssues, issuesMessage } from '../trpc';
import { sendError, sendJson } from './json-response';
import { storedQueryText } from './query-text';

export const ImportParams = z.object({
  dataset: storedQueryText(200, { trim: true }),
  file: storedQueryText(1000, { trim: false }),
  format: SourceFormat.optional(),
  /** `1`: answer 202 with the job as soon as the upload is stored; the import runs as a job. */
  background: z.enum(['0', '1']).optional(),
});

/** The body of a 200 answer to `POST /api/import`: the report and the CLI's exit code for it. */
export type ImportResponse = ImportReport & { exitCode: 0 | 1 | 2 };

export interface ImportRouteDeps {
  store: Store;
  /** The import job queue; without it, an upload's job runs in this request. */
  importJobs?: ImportJobs;
  /** Where uploads are kept until their import ends (default: a folder under the OS temp dir). */
  spoolDir?: string;
}

/**
 * `POST /api/import?dataset=NAME&file=FILENAME[&format=F][&background=1]`, the file's raw bytes as
 * the body. The body is stored as it streams in (a file in the spool folder), then imported as a
 * job, so an import that a crash interrupts resumes from its last stored group. Without
 * `background` the answer waits for the job and is its report; a client that goes away before
 * then cancels the job, and nothing is kept. With `background=1` the answer (202) is the job.
 */
export async function respondToImport(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  deps: ImportRouteDeps,
): Promise<void> {
  if (request.method !== 'POST') {
    request.resume();
    response.setHeader('allow', 'POST');
    sendError(response, 405, 'use POST with the file as the request body');
    return;
  }
  const params = ImportParams.safeParse({
    dataset: url.searchParams.get('dataset') ?? undefined,
    file: url.searchParams.get('file') ?? undefined,
    format: url.searchParams.get('format') ?? undefined,
    background: url.searchParams.get('background') ?? undefined,
  });
  if (!params.success) {
    request.resume();
    const issues = fieldIssues(params.error);
    sendError(response, 400, issuesMessage(issues), issues);
    return;
  }
  const disconnected = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnected.abort(new Error('client disconnected'));
  });
  const spoolDir = deps.spoolDir ?? join(tmpdir(), 'terrarium-imports');
  const spooled = join(spoolDir, `${randomUUID()}.upload`);
  try {
    // Uploads are trajectories: this user's alone, in the data folder or the system's temp.
    await mkdir(spoolDir, { recursive: true, mode: 0o700 });
    // A body cut off midway is an aborted upload, never a shorter file to import.
    await pipeline(request, createWriteStream(spooled, { mode: 0o600 }));
  } catch (error) {
    await rm(spooled, { force: true });
    if (disconnected.signal.aborted) return;
    console.error('POST /api/import: storing the upload failed:', error);
    const failure = uploadNotStored(error);
    sendError(response, failure.status, failure.message);
    return;
  }
  if (disconnected.signal.aborted) {
    await rm(spooled, { force: true });
    return;
  }
  const { size } = await stat(spooled);
  const spec = {
    dataset: params.data.dataset,
    format: params.data.format ?? null,
    files: [{ name: params.data.file, path: spooled, size }],
    ownsFiles: true,
  };
  let job: ImportJobRecord;
  let ran: Promise<unknown> = Promise.resolve();
  try {
    if (deps.importJobs !== undefined) job = await deps.importJobs.submit(spec);
    else {
      job = await deps.store.createImportJob(spec);
      const jobId = job.id;
      ran = runImportJob(deps.store, jobId);
    }
  } catch (error) {
    await rm(spooled, { force: true });
    console.error('POST /api/import: queuing the import failed:', error);
    sendError(response, 500, `import failed: ${INTERNAL_ERROR_MESSAGE}`);
    return;
  }
  if (params.data.background === '1') {
    sendJson(response, 202, { job: importJobView(job) });
    return;
  }
  const cancel = () => {
    void (deps.importJobs?.cancel(job.id) ?? cancelDirect(deps.store, job.id));
  };
  disconnected.signal.addEventListener('abort', cancel, { once: true });
  try {
    await ran;
    const finished = await waitFinished(deps, job.id, disconnected.signal);
    if (disconnected.signal.aborted) return;
    const report = finished.status === 'done' ? importJobView(finished).report : null;
    if (report === null) {
      // The reason stays in the server log: messages of storage errors carry SQL and paths.
      console.error(`POST /api/import: import ${job.id} ${finished.status}:`, finished.error);
      sendError(response, 500, `import failed: ${INTERNAL_ERROR_MESSAGE}`);
      return;
    }
    const body: ImportResponse = { ...report, exitCode: importExitCode(report) };
    sendJson(response, 200, body);
  } catch (error) {
    if (disconnected.signal.aborted) return;
    console.error('POST /api/import failed:', error);
    sendError(response, 500, `import failed: ${INTERNAL_ERROR_MESSAGE}`);
  } finally {
    disconnected.signal.removeEventListener('abort', cancel);
  }
}

/** Without a queue a job runs in its request: cancelling it is setting its status. */
async function cancelDirect(store: Store, jobId: string): Promise<boolean> {
  return store.finishImportJob(jobId, 'canceled', {}, ['queued', 'running']);
}

async function waitFinished(
  deps: ImportRouteDeps,
  jobId: string,
  signal: AbortSignal,
): Promise<ImportJobRecord> {
  if (deps.importJobs !== undefined) return deps.importJobs.finished(jobId, signal);
  const job = await deps.store.getImportJob(jobId);
  if (job === null) throw new Error(`import job ${jobId} vanished`);
  return job;
}

/**
 * Why an upload could not be stored, in the words the sender acts on. A full disk is the usual
 * cause and is theirs to fix (free space, send again), so it is said as such (507, Insufficient
 * Storage); the spool folder's path stays in the server log.
 */
export function uploadNotStored(error: unknown): { status: 500 | 507; message: string } {
  const reason = fileSystemReason(error);
  if (reason === null) return { status: 500, message: `import failed: ${INTERNAL_ERROR_MESSAGE}` };
  const full = isErrnoException(error) && (error.code === 'ENOSPC' || error.code === 'EDQUOT');
  return {
    status: full ? 507 : 500,
    message: `import failed: the server could not store the upload (${reason}); nothing was imported`,
  };
}
