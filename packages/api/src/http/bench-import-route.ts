import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import { z } from 'zod';
import { importAgentWorldBench, type BenchImportFile } from '../bench/bench-files';
import { fieldIssues, INTERNAL_ERROR_MESSAGE, issuesMessage } from '../trpc';
import { sendError, sendJson } from './json-response';
import { storedQueryText } from './query-text';

export const BENCH_IMPORT_PATH = '/api/bench/import';
/**
 * A bench is held in memory while it is read (its items are frozen in one transaction), so its
 * upload is bounded far below a trajectory import's: the official AgentWorldBench is ~2,000 rows.
 */
export const MAX_BENCH_UPLOAD_BYTES = 1024 * 1024 * 1024;

const BenchImportParams = z
  .object({
    name: storedQueryText(200, { trim: true }),
    file: z
      .array(storedQueryText(1000, { trim: false }))
      .min(1, 'name at least one file')
      .max(1000),
    size: z.array(z.coerce.number().int().nonnegative()),
  })
  .refine(
    (params) =>
      params.size.length === params.file.length ||
      (params.file.length === 1 && params.size.length === 0),
    {
      path: ['size'],
      message: 'give each file its size in bytes (size=N once per file=NAME, in the same order)',
    },
  );

/** The upload cannot be read as the files it declares: nothing is imported. */
class UploadError extends Error {}

interface DeclaredFile {
  name: string;
  /** Bytes of the body that are this file's; null: the rest of the body (a single file). */
  size: number | null;
}

/** Pieces of the request body of at most `max` bytes, in order; null at its end. */
function bodyReader(
  chunks: AsyncIterator<Uint8Array>,
): (max: number) => Promise<Uint8Array | null> {
  let rest: Uint8Array | null = null;
  return async (max) => {
    let chunk = rest;
    rest = null;
    if (chunk === null) {
      const next = await chunks.next();
      if (next.done === true) return null;
      chunk = next.value;
    }
    if (chunk.byteLength <= max) return chunk;
    rest = chunk.subarray(max);
    return chunk.subarray(0, max);
  };
}

/**
 * One declared file's lines (LF or CRLF) as its bytes arrive. A body that ends early, a byte that
 * is not UTF-8, or (after the last file) bytes beyond the declared sizes fail the whole import
 * naming the file and line: the reader never gets to store a bench from a partial upload.
 */
async function* declaredFileLines(
  read: (max: number) => Promise<Uint8Array | null>,
  file: DeclaredFile,
  last: boolean,
): AsyncGenerator<string> {
  // Lines are cut at LF bytes and decoded one by one, so a bad byte is reported at its own line.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let remaining = file.size ?? Number.POSITIVE_INFINITY;
  let received = 0;
  let line = 0;
  let pending: Uint8Array[] = [];
  const lineText = (parts: readonly Uint8Array[]): string => {
    line++;
    const bytes = parts.length === 1 ? (parts[0] ?? new Uint8Array()) : Buffer.concat(parts);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new UploadError(`${file.name}:${line}: not UTF-8 text; nothing imported`);
    }
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  while (remaining > 0) {
    const piece = await read(Math.min(remaining, Number.MAX_SAFE_INTEGER));
    if (piece === null) {
      if (file.size === null) break;
      throw new UploadError(
        `${file.name}:${line + 1}: the upload ended after ${received} of ${file.size} bytes; nothing imported`,
      );
    }
    remaining -= piece.byteLength;
    received += piece.byteLength;
    let start = 0;
    for (let end = piece.indexOf(0x0a); end !== -1; end = piece.indexOf(0x0a, start)) {
      pending.push(piece.subarray(start, end));
      yield lineText(pending);
      pending = [];
      start = end + 1;
    }
    if (start < piece.byteLength) pending.push(piece.subarray(start));
  }
  if (pending.length > 0) yield lineText(pending);
  if (last && (await read(1)) !== null) {
    throw new UploadError(
      `${file.name}: the upload is longer than the sizes given (${received} bytes declared for it); nothing imported`,
    );
  }
}

/**
 * `POST /api/bench/import?name=NAME&file=F1&size=BYTES1[&file=F2&size=BYTES2…]`: AgentWorldBench
 * JSONL files (a folder's `*_test.jsonl`, in the order given) as one new bench or the next version
 * of NAME. The body is the files' bytes one after another (a single file needs no size); it is
 * read as it streams, never held whole. Bad rows are reported as `file:line: field: reason` and
 * skipped, as `bench import` does; an upload that is cut short, longer than declared or not UTF-8
 * is refused naming file and line, and stores nothing (the bench is written in one transaction
 * once every file is read).
 */
export async function respondToBenchImport(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  store: Store,
): Promise<void> {
  if (request.method !== 'POST') {
    request.resume();
    response.setHeader('allow', 'POST');
    sendError(response, 405, 'use POST with the files one after another as the request body');
    return;
  }
  const params = BenchImportParams.safeParse({
    name: url.searchParams.get('name') ?? undefined,
    file: url.searchParams.getAll('file'),
    size: url.searchParams.getAll('size'),
  });
  if (!params.success) {
    request.resume();
    const issues = fieldIssues(params.error);
    sendError(response, 400, issuesMessage(issues), issues);
    return;
  }
  const declared: DeclaredFile[] = params.data.file.map((name, i) => ({
    name,
    size: params.data.size[i] ?? null,
  }));
  const total = declared.reduce((sum, file) => sum + (file.size ?? 0), 0);
  if (total > MAX_BENCH_UPLOAD_BYTES) {
    request.resume();
    sendError(response, 413, `size: the files exceed ${MAX_BENCH_UPLOAD_BYTES} bytes`);
    return;
  }
  const disconnected = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnected.abort(new Error('client disconnected'));
  });
  const read = bodyReader(bodyChunks(request, declared.length === 1 && declared[0]?.size === null));
  const files: BenchImportFile[] = declared.map((file, i) => ({
    fileName: file.name,
    lines: declaredFileLines(read, file, i === declared.length - 1),
  }));
  try {
    const result = await importAgentWorldBench(store, { name: params.data.name, files });
    sendJson(response, 200, result);
  } catch (error) {
    request.resume();
    if (disconnected.signal.aborted) return;
    if (error instanceof UploadError) {
      sendError(response, 400, error.message);
      return;
    }
    // The reason stays in the server log: messages of storage errors carry SQL and paths.
    console.error(`POST ${BENCH_IMPORT_PATH} failed:`, error);
    sendError(response, 500, `bench import failed: ${INTERNAL_ERROR_MESSAGE}`);
  }
}

/**
 * The body's chunks, bounded: a single file without a declared size may stream (chunked) up to
 * the limit, after which the upload is refused rather than read on.
 */
async function* bodyChunks(request: IncomingMessage, unsized: boolean): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of request.iterator({ destroyOnReturn: false })) {
    if (!(chunk instanceof Uint8Array)) continue;
    bytes += chunk.byteLength;
    if (unsized && bytes > MAX_BENCH_UPLOAD_BYTES) {
      throw new UploadError(`the upload exceeds ${MAX_BENCH_UPLOAD_BYTES} bytes; nothing imported`);
    }
    yield chunk;
  }
}
