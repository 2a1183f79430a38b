import {
  apiErrorMessage,
  ImportJobView,
  isObviouslyNotData,
  type ImportReport,
  type SourceFormat,
} from '@terrarium/schema';
import { sendSessionProof } from '../../app/session-proof';

export type ImportOutcome =
  { ok: true; report: ImportReport; exitCode: number | null } | { ok: false; error: string };

/** A dataset name from a file name: the base name without data extensions. */
export function datasetNameFor(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const stripped = base.replace(/(\.(gz|jsonl|json|traj|txt|ndjson))+$/i, '');
  return stripped === '' ? base : stripped;
}

/** What the import page knows of a picked file: a folder pick gives its path inside the folder. */
export type PickedFile = Pick<File, 'name' | 'webkitRelativePath'>;

/**
 * The name an upload carries to the server (and its trajectories' ids): the file's path inside a
 * picked folder, as the CLI names a folder's files, else its name. SWE-agent writes every run's
 * trajectory as `<run folder>/<instance>.traj`, so the name alone repeats across runs.
 */
export function uploadName(file: PickedFile): string {
  return file.webkitRelativePath === '' ? file.name : file.webkitRelativePath;
}

/** The dataset a file goes to when none is typed: the picked folder's name, else the file's. */
export function defaultDatasetName(file: PickedFile): string {
  const [folder] = file.webkitRelativePath.split('/');
  return file.webkitRelativePath.includes('/') && folder !== undefined && folder !== ''
    ? folder
    : datasetNameFor(file.name);
}

/**
 * The files of a picked folder worth uploading, as the CLI picks them from a folder: no hidden
 * files or folders, licences, notes or configs. Files picked one by one are all kept.
 */
export function dataFilesOf<T extends PickedFile>(files: readonly T[]): T[] {
  return files.filter((file) => {
    if (file.webkitRelativePath === '') return true;
    const parts = file.webkitRelativePath.split('/');
    return (
      !parts.slice(1, -1).some((part) => part.startsWith('.')) && !isObviouslyNotData(file.name)
    );
  });
}

export function importUrl(
  fileName: string,
  dataset: string,
  format: SourceFormat | null,
  background = false,
): string {
  const params = new URLSearchParams({ dataset, file: fileName });
  if (format) params.set('format', format);
  if (background) params.set('background', '1');
  return `/api/import?${params.toString()}`;
}

export type UploadAnswer = { ok: true; job: ImportJobView } | { ok: false; error: string };

/** Reads the server's answer to a background upload: the import job (202), `{error}` otherwise. */
export function readUploadAnswer(status: number, text: string): UploadAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, error: `HTTP ${status}: ${text.slice(0, 300) || 'empty response'}` };
  }
  if (status < 200 || status >= 300) {
    return { ok: false, error: apiErrorMessage(body) ?? `HTTP ${status}` };
  }
  const job = ImportJobView.safeParse(
    typeof body === 'object' && body !== null ? Reflect.get(body, 'job') : undefined,
  );
  if (!job.success) return { ok: false, error: 'The server answered with an unexpected job.' };
  return { ok: true, job: job.data };
}

/**
 * POSTs one file as the raw request body; the server stores it and answers with the import job,
 * which runs on the server (the page follows it). XMLHttpRequest rather than fetch: it streams the
 * File from disk just the same and, unlike fetch over HTTP/1.1, reports upload progress.
 */
export function uploadForImport(
  file: File,
  dataset: string,
  format: SourceFormat | null,
  onProgress: (sentBytes: number) => void,
  signal: AbortSignal,
): Promise<UploadAnswer> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', importUrl(uploadName(file), dataset, format, true));
    request.setRequestHeader('Content-Type', 'application/octet-stream');
    sendSessionProof(request);
    request.upload.addEventListener('progress', (event) => onProgress(event.loaded));
    request.addEventListener('load', () =>
      resolve(readUploadAnswer(request.status, request.responseText)),
    );
    request.addEventListener('error', () =>
      resolve({ ok: false, error: 'The upload failed: network error.' }),
    );
    request.addEventListener('abort', () =>
      resolve({ ok: false, error: 'The upload was canceled; nothing was imported.' }),
    );
    signal.addEventListener('abort', () => request.abort(), { once: true });
    request.send(file);
  });
}
