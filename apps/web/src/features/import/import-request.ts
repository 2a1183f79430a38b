import { ImportReport, type SourceFormat } from '@terrarium/schema';

export type ImportOutcome =
  { ok: true; report: ImportReport; exitCode: number | null } | { ok: false; error: string };

/** A dataset name from a file name: the base name without data extensions. */
export function datasetNameFor(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const stripped = base.replace(/(\.(gz|jsonl|json|traj|txt|ndjson))+$/i, '');
  return stripped === '' ? base : stripped;
}

export function importUrl(fileName: string, dataset: string, format: SourceFormat | null): string {
  const params = new URLSearchParams({ dataset, file: fileName });
  if (format) params.set('format', format);
  return `/api/import?${params.toString()}`;
}

function hasErrorMessage(value: unknown): value is { error: string } {
  return (
    typeof value === 'object' && value !== null && typeof Reflect.get(value, 'error') === 'string'
  );
}

/** Reads the server's answer: an ImportReport (+ exitCode) on success, `{error}` otherwise. */
export function readImportResponse(status: number, text: string): ImportOutcome {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, error: `HTTP ${status}: ${text.slice(0, 300) || 'empty response'}` };
  }
  if (status < 200 || status >= 300) {
    return {
      ok: false,
      error: hasErrorMessage(body) ? body.error : `HTTP ${status}`,
    };
  }
  const report = ImportReport.safeParse(body);
  if (!report.success)
    return { ok: false, error: 'The server answered with an unexpected report.' };
  const exitCode =
    typeof body === 'object' && body !== null ? Reflect.get(body, 'exitCode') : undefined;
  return {
    ok: true,
    report: report.data,
    exitCode: typeof exitCode === 'number' ? exitCode : null,
  };
}

/**
 * POSTs one file as the raw request body. XMLHttpRequest rather than fetch: it streams the File
 * from disk just the same and, unlike fetch over HTTP/1.1, reports upload progress.
 */
export function uploadForImport(
  file: File,
  dataset: string,
  format: SourceFormat | null,
  onProgress: (sentBytes: number) => void,
): Promise<ImportOutcome> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', importUrl(file.name, dataset, format));
    request.setRequestHeader('Content-Type', 'application/octet-stream');
    request.upload.addEventListener('progress', (event) => onProgress(event.loaded));
    request.addEventListener('load', () =>
      resolve(readImportResponse(request.status, request.responseText)),
    );
    request.addEventListener('error', () =>
      resolve({ ok: false, error: 'The upload failed: network error.' }),
    );
    request.addEventListener('abort', () =>
      resolve({ ok: false, error: 'The upload was aborted.' }),
    );
    request.send(file);
  });
}
