import { apiErrorMessage, BenchImportResponse } from '@terrarium/schema';
import { sendSessionProof } from '../../app/session-proof';

export type BenchUploadOutcome =
  { ok: true; result: BenchImportResponse } | { ok: false; error: string };

/** The bench import route for these files, in the order they are sent, each with its byte size. */
export function benchImportUrl(
  name: string,
  files: ReadonlyArray<{ name: string; size: number }>,
): string {
  const params = new URLSearchParams({ name });
  for (const file of files) {
    params.append('file', file.name);
    params.append('size', String(file.size));
  }
  return `/api/bench/import?${params.toString()}`;
}

/**
 * The files to send for a picked set: the official `*_test.jsonl` (sorted by name, as the official
 * script loads a folder) when any is among them, else every `.jsonl`.
 */
export function benchFilesOf<T extends { name: string }>(picked: readonly T[]): T[] {
  const sorted = picked.toSorted((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const official = sorted.filter((file) => file.name.endsWith('_test.jsonl'));
  return official.length > 0 ? official : sorted.filter((file) => file.name.endsWith('.jsonl'));
}

/** Reads the route's answer: the manifest and row errors, or the refusal's message. */
export function readBenchUploadResponse(status: number, text: string): BenchUploadOutcome {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, error: `HTTP ${status}: ${text.slice(0, 300) || 'empty response'}` };
  }
  if (status < 200 || status >= 300)
    return { ok: false, error: apiErrorMessage(body) ?? `HTTP ${status}` };
  const result = BenchImportResponse.safeParse(body);
  return result.success
    ? { ok: true, result: result.data }
    : { ok: false, error: 'The server answered with an unexpected result.' };
}

/**
 * Streams the files in one request (a Blob of them, read from disk as it is sent), so a folder of
 * files is one bench and the upload never passes through a JavaScript string.
 */
export function uploadBench(
  name: string,
  files: readonly File[],
  onProgress: (sentBytes: number) => void,
): Promise<BenchUploadOutcome> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', benchImportUrl(name, files));
    request.setRequestHeader('Content-Type', 'application/x-ndjson');
    sendSessionProof(request);
    request.upload.addEventListener('progress', (event) => onProgress(event.loaded));
    request.addEventListener('load', () =>
      resolve(readBenchUploadResponse(request.status, request.responseText)),
    );
    request.addEventListener('error', () =>
      resolve({ ok: false, error: 'The upload failed: network error.' }),
    );
    request.send(new Blob([...files]));
  });
}
