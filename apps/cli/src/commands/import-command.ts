import { stat } from 'node:fs/promises';
import path from 'node:path';
import { findDataFiles, type DataFile, type FoundFiles } from '@terrarium/api';
import type { ImportJobRecord, Store } from '@terrarium/db';
import { runImportJob, type ImportCheckpoint } from '@terrarium/jobs';
import {
  alreadyStoredNote,
  importExitCode,
  plural,
  someNames,
  SOURCE_FORMATS,
  SourceFormat,
  unreadFilesNote,
  warningText,
  type ImportReport,
  type ImportWarning,
} from '@terrarium/schema';
import { CliError } from '../cli-error';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { byteProgress, type ProgressSink } from '../progress';
import { pollEvery } from '../poll-every';
import { fetchImportJobs, uploadFile } from '../server-client';

export interface ImportCommandOptions extends GlobalOptions {
  format?: string;
  dataset?: string;
  json?: boolean;
  /** Continue the imports a crash or a kill interrupted (every one, when no path is given). */
  resume?: boolean;
}

/** `terrarium import PATH...`: sets the exit code 0 (all in), 2 (some quarantined) or 1 (nothing in). */
export async function runImport(paths: string[], options: ImportCommandOptions): Promise<void> {
  if (paths.length === 0 && options.resume === true) return resumeAll(options);
  const format = parseFormat(options.format);
  const firstPath = paths[0];
  if (firstPath === undefined) throw new CliError('name at least one file or folder to import');
  const dataset = options.dataset ?? (await defaultDatasetName(firstPath));
  const { files, leftOut } = await collectFiles(paths);
  if (leftOut.length > 0) process.stderr.write(`${leftOutNote(leftOut)}\n`);

  const target = await connect(options);
  const progress = byteProgress(
    files.reduce((sum, file) => sum + file.size, 0),
    !options.json,
  );
  let report: ImportReport;
  try {
    report =
      files.length === 0
        ? emptyReport(dataset, paths)
        : await importInto(target, files, { dataset, format, progress });
  } finally {
    progress.stop();
    await disconnect(target);
  }

  if (options.json) process.stdout.write(`${JSON.stringify(toJsonOutput(report))}\n`);
  else printSummary(report, target);
  process.exitCode = importExitCode(report);
}

function parseFormat(value: string | undefined): SourceFormat | undefined {
  if (value === undefined) return undefined;
  const format = SourceFormat.safeParse(value);
  if (!format.success) {
    throw new CliError(`--format: unknown format "${value}"; one of ${SOURCE_FORMATS.join(', ')}`);
  }
  return format.data;
}

/** The first path's base name, without the extension when it is a file. */
async function defaultDatasetName(firstPath: string): Promise<string> {
  const resolved = path.resolve(firstPath);
  const isFolder = await stat(resolved).then(
    (info) => info.isDirectory(),
    () => false,
  );
  return isFolder ? path.basename(resolved) : path.parse(resolved).name;
}

async function collectFiles(paths: string[]): Promise<FoundFiles> {
  for (const given of paths) {
    const exists = await stat(given).then(
      () => true,
      () => false,
    );
    if (!exists) throw new CliError(`no such file or folder: ${given}`);
  }
  return findDataFiles(paths);
}

/** One line naming what a folder held that is not imported, so nothing is skipped unsaid. */
export function leftOutNote(leftOut: readonly string[]): string {
  return `Left out as licences, notes, configs or hidden files (name a file to import it anyway): ${someNames(leftOut)}.`;
}

async function importInto(
  target: DataTarget,
  files: DataFile[],
  options: { dataset: string; format?: SourceFormat; progress: ProgressSink },
): Promise<ImportReport> {
  const { dataset, format, progress } = options;
  if (target.kind === 'server') {
    // The server commits each upload as its own batch; a failed file is listed, the others stay.
    const reports: ImportReport[] = [];
    let trajectoriesSoFar = 0;
    let current = '';
    // The upload is the import: a client gone before the answer cancels its file on the server.
    const interrupted = () => {
      progress.stop();
      const before = reports.filter((report) => report.trajectories > 0).length;
      process.stderr.write(
        `terrarium: import interrupted: the server keeps nothing of ${current}` +
          (before === 0
            ? ''
            : `; the ${before === 1 ? 'file' : `${before} files`} before it stay imported`) +
          '\n',
      );
      process.exit(130);
    };
    process.once('SIGINT', interrupted);
    try {
      for (const file of files) {
        current = file.name;
        let sent = 0;
        let stored = 0;
        const show = (byteLength: number) =>
          progress.advance(byteLength, {
            // Once a file is all sent, the server is still importing it: its job says how far.
            file: sent < file.size ? file.name : `${file.name}: sent, the server imports it…`,
            trajectories: trajectoriesSoFar + stored,
          });
        const following = followServerImport(target, dataset, file.name, (trajectories) => {
          stored = trajectories;
          show(0);
        });
        const report = await uploadFile(target.url, file, {
          dataset,
          format,
          token: target.token,
          onBytes: (byteLength) => {
            sent += byteLength;
            show(byteLength);
          },
        })
          .catch((error: unknown) => failedFileReport(dataset, file, error))
          .finally(() => following.stop());
        trajectoriesSoFar += report.trajectories;
        reports.push(report);
      }
    } finally {
      process.off('SIGINT', interrupted);
    }
    return mergeReports(dataset, reports);
  }

  return importAsJob(target.store, files, { dataset, format, progress });
}

/** How often an upload's import job is read for the trajectories it has stored. */
const FOLLOW_MS = 1000;

/**
 * Reads, while `fileName` uploads into `dataset`, the trajectories its import job on the server has
 * stored so far (the job the upload created: the newest running one of that dataset and file).
 */
function followServerImport(
  target: { url: string; token: string },
  dataset: string,
  fileName: string,
  onStored: (trajectories: number) => void,
): { stop(): void } {
  let stopped = false;
  const polling = pollEvery(FOLLOW_MS, async () => {
    const job = (await fetchImportJobs(target.url, target.token)).find(
      (found) =>
        found.status === 'running' &&
        found.dataset === dataset &&
        found.files[0]?.name === fileName,
    );
    if (job !== undefined && !stopped) onStored(job.trajectories);
  });
  return {
    stop() {
      stopped = true;
      polling.stop();
    },
  };
}

/**
 * A local import is a job in the store, run in this process: a kill leaves it resumable (its next
 * `terrarium import` of the same files, or `--resume`, continues from the last stored group), and
 * Ctrl-C cancels it: nothing is kept.
 */
async function importAsJob(
  store: Store,
  files: DataFile[],
  options: { dataset: string; format?: SourceFormat; progress: ProgressSink },
): Promise<ImportReport> {
  const jobFiles = files.map((file) => ({
    name: file.name,
    path: path.resolve(file.path),
    size: file.size,
  }));
  const unfinished = (await store.listImportJobs(200)).find(
    (job) =>
      (job.status === 'queued' || job.status === 'running') &&
      job.dataset === options.dataset &&
      job.format === (options.format ?? null) &&
      JSON.stringify(job.files) === JSON.stringify(jobFiles),
  );
  const job =
    unfinished ??
    (await store.createImportJob({
      dataset: options.dataset,
      format: options.format ?? null,
      files: jobFiles,
      ownsFiles: false,
    }));
  return runJob(store, job, options.progress);
}

/**
 * What a resumed import says first, and the bytes it had read: the files before the one it
 * stopped in and what it had read of that one (a single big file's resume said 0% after thousands
 * of trajectories, counting only the files before).
 */
export function resumeNote(
  job: Pick<ImportJobRecord, 'dataset' | 'totalBytes'>,
  from: Pick<ImportCheckpoint, 'bytesBefore' | 'bytesInFile' | 'report'>,
): { text: string; bytesDone: number } {
  const bytesDone = from.bytesBefore + from.bytesInFile;
  const share = job.totalBytes > 0 ? Math.floor((100 * bytesDone) / job.totalBytes) : 0;
  return {
    text: `Resuming the import into "${job.dataset}" that stopped after ${from.report.trajectories} trajectories (${share}% of the bytes read).\n`,
    bytesDone,
  };
}

async function runJob(
  store: Store,
  job: ImportJobRecord,
  progress: ProgressSink,
): Promise<ImportReport> {
  const interrupted = new AbortController();
  const stopOnSignal = () => interrupted.abort(new Error('interrupted'));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  let lastBytes = 0;
  let lastFile = '';
  try {
    const outcome = await runImportJob(store, job.id, {
      cancel: interrupted.signal,
      onStart: (_started, resumedFrom) => {
        if (resumedFrom === null) return;
        const resumed = resumeNote(job, resumedFrom);
        process.stderr.write(resumed.text);
        progress.advance(resumed.bytesDone, {
          file: '',
          trajectories: resumedFrom.report.trajectories,
        });
      },
      onProgress: ({ file, bytesRead, trajectories }) => {
        if (file !== lastFile) lastBytes = 0;
        lastFile = file;
        progress.advance(bytesRead - lastBytes, { file, trajectories });
        lastBytes = bytesRead;
      },
    });
    if (outcome.status === 'canceled') throw new CliError('import interrupted; nothing was kept');
    if (outcome.report === null) {
      throw new CliError(`import failed: ${outcome.error ?? 'the import stopped'}`);
    }
    return outcome.report;
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
  }
}

/** `terrarium import --resume`: every import a crash or a kill left unfinished, in order. */
async function resumeAll(options: ImportCommandOptions): Promise<void> {
  const target = await connect(options);
  try {
    if (target.kind === 'server') {
      throw new CliError(
        `terrarium serve owns ${target.dataDir}: it resumes interrupted imports itself when it starts`,
      );
    }
    const unfinished = (await target.store.listImportJobs(500))
      .filter((job) => job.status === 'queued' || job.status === 'running')
      .toReversed();
    if (unfinished.length === 0 && !options.json) {
      process.stdout.write('No interrupted import to resume.\n');
    }
    let exitCode: 0 | 1 | 2 = 0;
    for (const job of unfinished) {
      const progress = byteProgress(job.totalBytes, !options.json);
      let report: ImportReport;
      try {
        report = await runJob(target.store, job, progress);
      } finally {
        progress.stop();
      }
      if (options.json) process.stdout.write(`${JSON.stringify(toJsonOutput(report))}\n`);
      else printSummary(report, target);
      exitCode = worseExitCode(exitCode, importExitCode(report));
    }
    process.exitCode = exitCode;
  } finally {
    await disconnect(target);
  }
}

/** Of two imports' exit codes, the one that says more went wrong: 1 (nothing in), 2, then 0. */
function worseExitCode(a: 0 | 1 | 2, b: 0 | 1 | 2): 0 | 1 | 2 {
  if (a === 1 || b === 1) return 1;
  return a === 2 || b === 2 ? 2 : 0;
}

/** One report for files that a server imported one by one. */
export function mergeReports(dataset: string, reports: ImportReport[]): ImportReport {
  const formats = new Set(reports.flatMap((report) => (report.format ? [report.format] : [])));
  const [onlyFormat] = formats;
  return {
    dataset,
    format: formats.size > 1 || formats.has('mixed') ? 'mixed' : (onlyFormat ?? null),
    trajectories: reports.reduce((sum, report) => sum + report.trajectories, 0),
    transitions: reports.reduce((sum, report) => sum + report.transitions, 0),
    quarantined: reports.reduce((sum, report) => sum + report.quarantined, 0),
    errors: reports.flatMap((report) => report.errors),
    ...withWarnings(reports.flatMap((report) => report.warnings ?? [])),
    ...withAlreadyStored(reports.reduce((sum, report) => sum + (report.alreadyStored ?? 0), 0)),
    ...withUnknownFormatFiles(
      reports.reduce((sum, report) => sum + (report.unknownFormatFiles ?? 0), 0),
    ),
    ...withStoppedFiles(reports.reduce((sum, report) => sum + (report.stoppedFiles ?? 0), 0)),
  };
}

function withUnknownFormatFiles(count: number): Pick<ImportReport, 'unknownFormatFiles'> {
  return count === 0 ? {} : { unknownFormatFiles: count };
}

function withStoppedFiles(count: number): Pick<ImportReport, 'stoppedFiles'> {
  return count === 0 ? {} : { stoppedFiles: count };
}

function withAlreadyStored(count: number): Pick<ImportReport, 'alreadyStored'> {
  return count === 0 ? {} : { alreadyStored: count };
}

function withWarnings(warnings: ImportWarning[]): Pick<ImportReport, 'warnings'> {
  return warnings.length === 0 ? {} : { warnings };
}

function failedFileReport(dataset: string, file: DataFile, error: unknown): ImportReport {
  return {
    dataset,
    format: null,
    trajectories: 0,
    transitions: 0,
    quarantined: 0,
    errors: [
      {
        file: file.name,
        line: null,
        byteOffset: null,
        reason: error instanceof Error ? error.message : String(error),
      },
    ],
    stoppedFiles: 1,
  };
}

function emptyReport(dataset: string, paths: string[]): ImportReport {
  return {
    dataset,
    format: null,
    trajectories: 0,
    transitions: 0,
    quarantined: 0,
    errors: paths.map((given) => ({
      file: given,
      line: null,
      byteOffset: null,
      reason: 'no data files found (licences, *.md and *.yaml are skipped)',
    })),
  };
}

/** The documented `--json` shape: errors carry file, line and reason (a byte offset joins the reason). */
export function toJsonOutput(report: ImportReport) {
  return {
    dataset: report.dataset,
    format: report.format,
    trajectories: report.trajectories,
    transitions: report.transitions,
    quarantined: report.quarantined,
    errors: report.errors.map((error) => ({
      file: error.file,
      line: error.line,
      reason:
        error.line === null && error.byteOffset !== null
          ? `${error.reason} (at byte ${error.byteOffset})`
          : error.reason,
    })),
    ...withWarnings(report.warnings ?? []),
    ...withAlreadyStored(report.alreadyStored ?? 0),
    ...withUnknownFormatFiles(report.unknownFormatFiles ?? 0),
    ...withStoppedFiles(report.stoppedFiles ?? 0),
  };
}

const ERRORS_SHOWN = 20;

function printSummary(report: ImportReport, target: DataTarget): void {
  const via = target.kind === 'server' ? ` through the server at ${target.url}` : '';
  const format = report.format ? ` (${report.format})` : '';
  const lines = [
    `Imported ${plural(report.trajectories, 'trajectory', 'trajectories')}, ${plural(report.transitions, 'transition')}${format} into dataset "${report.dataset}"${via}.`,
  ];
  if (report.quarantined > 0) {
    lines.push(
      `${report.quarantined} bad ${report.quarantined === 1 ? 'record' : 'records'} quarantined.`,
    );
  }
  const unread = unreadFilesNote(report);
  if (unread !== null) lines.push(`${unread} (named below).`);
  const repeated = alreadyStoredNote(report);
  if (repeated !== null) lines.push(repeated);
  else if (report.trajectories === 0) lines.push('Nothing was imported.');
  process.stdout.write(`${lines.join('\n')}\n`);
  for (const error of report.errors.slice(0, ERRORS_SHOWN)) {
    const place =
      error.line !== null
        ? `:${error.line}`
        : error.byteOffset !== null
          ? `@${error.byteOffset}`
          : '';
    process.stderr.write(`${error.file}${place}: ${error.reason}\n`);
  }
  if (report.errors.length > ERRORS_SHOWN) {
    process.stderr.write(
      `… and ${report.errors.length - ERRORS_SHOWN} more (use --json for all)\n`,
    );
  }
  for (const warning of report.warnings ?? [])
    process.stderr.write(`warning: ${warningText(warning)}\n`);
}
