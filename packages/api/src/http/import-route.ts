import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import { importExitCode, SourceFormat, type ImportReport } from '@terrarium/schema';
import { z } from 'zod';
import { importFiles } from '../import/import-files';
import { INTERNAL_ERROR_MESSAGE } from '../trpc';
import { fieldIssues } from '../trpc';
import { sendError, sendJson } from './json-response';

export const ImportParams = z.object({
  dataset: z.string().trim().min(1, 'required').max(200),
  file: z.string().min(1, 'required').max(1000),
  format: SourceFormat.optional(),
});

/** The body of a 200 answer to `POST /api/import`: the report and the CLI's exit code for it. */
export type ImportResponse = ImportReport & { exitCode: 0 | 1 | 2 };

/**
 * `POST /api/import?dataset=NAME&file=FILENAME[&format=F]`, the file's raw bytes as the body. The body
 * streams straight into the importer; a client that goes away aborts the import and nothing is kept.
 */
export async function respondToImport(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  store: Store,
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
  });
  if (!params.success) {
    request.resume();
    const issues = fieldIssues(params.error);
    sendError(
      response,
      400,
      issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '),
      issues,
    );
    return;
  }
  const disconnected = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnected.abort(new Error('client disconnected'));
  });
  const declaredSize = Number(request.headers['content-length']);
  try {
    const report = await importFiles(
      store,
      [
        {
          name: params.data.file,
          chunks: requestChunks(request, (error) => disconnected.abort(error)),
          size: Number.isFinite(declaredSize) ? declaredSize : undefined,
        },
      ],
      { dataset: params.data.dataset, format: params.data.format, signal: disconnected.signal },
    );
    const body: ImportResponse = { ...report, exitCode: importExitCode(report) };
    sendJson(response, 200, body);
  } catch (error) {
    // Nobody is left to answer when the client went away; the batch was already discarded.
    if (disconnected.signal.aborted) return;
    // The reason stays in the server log: messages of storage errors carry SQL and paths.
    console.error('POST /api/import failed:', error);
    sendError(response, 500, `import failed: ${INTERNAL_ERROR_MESSAGE}`);
  }
}

async function* requestChunks(
  request: IncomingMessage,
  onBrokenBody: (error: unknown) => void,
): AsyncGenerator<Uint8Array> {
  try {
    // Not destroyed when the reader stops early (say, on an unknown format): destroying the request
    // would take the socket with it, and the answer could not be sent.
    for await (const chunk of request.iterator({ destroyOnReturn: false })) {
      if (chunk instanceof Uint8Array) yield chunk;
    }
  } catch (error) {
    // A body cut off midway is an aborted import, never a shorter file to commit.
    onBrokenBody(error);
    throw error;
  } finally {
    request.resume();
  }
}
