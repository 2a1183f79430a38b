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
  type ImportJobView,
  type ImportReport,
  type ImportWarning,
} from '@terrarium/schema';
import { CliError } from '../cli-error';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { byteProgress, type ProgressSink } from '../progress';
import { cancelImportJob, fetchImportJob, uploadFile } from '../server-client';

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
  if (target.kind === 'server') return importThroughServer(target, files, options);
  return importAsJob(target.store, files, { dataset, format, progress });
}

/** How long Ctrl-C waits for the server to take the cancel (or the upload's answer) before exiting. */
const CANCEL_WAIT_MS = 10_000;

/** The file being uploaded or imported: its name, its upload's answer (the job), all sent yet. */
interface FileInHand {
  name: string;
  job: Promise<ImportJobView> | null;
  allSent: boolean;
}

/** An upload's outcome: the server's job for the file, or why there is none. */
type Uploaded = { ok: true; job: ImportJobView } | { ok: false; error: unknown };

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/**
 * Each file uploaded to the server, which imports it as its own job (one batch per file: a file
 * the server refuses is listed, the others go on), followed until that job ends. Ctrl-C cancels
 * the file in hand (the server keeps nothing of it); a killed CLI or a restarted server does not:
 * the job goes on, and after a restart from its last stored part.
 */
async function importThroughServer(
  target: { url: string; token: string },
  files: DataFile[],
  options: { dataset: string; format?: SourceFormat; progress: ProgressSink },
): Promise<ImportReport> {
  const { dataset, format, progress } = options;
  const reports: ImportReport[] = [];
  let trajectoriesSoFar = 0;
  let bytesBefore = 0;
  let current: FileInHand | null = null;
  // Once interrupted, the cancel's answer is what is said: the job seen canceled is not a result.
  const halted = new AbortController();
  const interrupted = () => {
    halted.abort();
    progress.stop();
    const inHand = current;
    if (inHand !== null && inHand.job !== null) {
      // The cancel can take up to CANCEL_WAIT_MS to answer: said now, with the way out.
      process.stderr.write(
        `terrarium: canceling the import of ${inHand.name} on the server… (Ctrl-C again to leave without waiting)\n`,
      );
      process.once('SIGINT', () => {
        process.stderr.write(
          `terrarium: import interrupted without waiting for the cancel: ${inHand.name} may go on importing on the server (its Import page shows it)\n`,
        );
        process.exit(130);
      });
    }
    const before = reports.filter((report) => report.trajectories > 0).length;
    const kept =
      before === 0
        ? ''
        : `; the ${before === 1 ? 'file' : `${before} files`} before it stay imported`;
    void interruptedText(target, current)
      .then((said) => `terrarium: import interrupted${said}${kept}\n`)
      .then((said) => {
        process.stderr.write(said);
        process.exit(130);
      });
  };
  process.once('SIGINT', interrupted);
  try {
    for (const [position, file] of files.entries()) {
      let sent = 0;
      const hand: FileInHand = { name: file.name, job: null, allSent: false };
      current = hand;
      hand.job = uploadFile(target.url, file, {
        dataset,
        ...(format === undefined ? {} : { format }),
        token: target.token,
        onBytes: (byteLength) => {
          sent += byteLength;
          hand.allSent = sent >= file.size;
          progress.at(bytesBefore + sent, {
            file: `${file.name}: uploading`,
            trajectories: trajectoriesSoFar,
          });
        },
      });
      const uploaded = await hand.job.then<Uploaded, Uploaded>(
        (job) => ({ ok: true, job }),
        (error: unknown) => ({ ok: false, error }),
      );
      if (!uploaded.ok) {
        // Refused or cut off while uploading: this file is listed, the next ones go.
        reports.push(failedFileReport(dataset, file, uploaded.error));
        bytesBefore += file.size;
        continue;
      }
      const { job } = uploaded;
      // The bar starts again for the server's part: what it has stored of the file.
      const ended = await followServerImport(target, job, halted.signal, progress, (view) =>
        progress.at(bytesBefore + view.doneBytes, {
          file: `${file.name}: ${view.status === 'queued' ? 'queued on' : 'importing on'} the server`,
          trajectories: trajectoriesSoFar + view.trajectories,
        }),
      ).catch((error: unknown) => {
        // The job is the server's and goes on: said for the whole command, never as a bad file.
        const unsent = files.slice(position + 1).map((left) => left.name);
        const also = unsent.length === 0 ? '' : `; not sent: ${someNames(unsent)}`;
        throw new CliError(`${error instanceof Error ? error.message : String(error)}${also}`);
      });
      const report = reportOfEndedJob(dataset, file, ended);
      trajectoriesSoFar += report.trajectories;
      bytesBefore += file.size;
      reports.push(report);
    }
  } finally {
    process.off('SIGINT', interrupted);
  }
  return mergeReports(dataset, reports);
}

/**
 * What Ctrl-C did to the file in hand, in words after "import interrupted": its job canceled
 * (nothing kept), ended already (it stays), or not known to have stopped.
 */
async function interruptedText(
  target: { url: string; token: string },
  current: FileInHand | null,
): Promise<string> {
  if (current === null) return '';
  const { name } = current;
  const mayGoOn = `: the server did not take the cancel, so ${name} may go on importing (its Import page shows it)`;
  // Cut off mid-upload, the server drops what it got; once all is sent, the job may exist.
  if (current.job === null) return `: the server keeps nothing of ${name}`;
  const job = await within(current.job, current.allSent ? CANCEL_WAIT_MS : 0).catch(() => null);
  if (job === null) return current.allSent ? mayGoOn : `: the server keeps nothing of ${name}`;
  const abort = new AbortController();
  const answer = await within(
    cancelImportJob(target.url, target.token, job.id, abort.signal),
    CANCEL_WAIT_MS,
  ).catch(() => null);
  abort.abort();
  if (answer === null) return mayGoOn;
  if (answer.canceled) return `: the server keeps nothing of ${name}`;
  return answer.job.status === 'done'
    ? ` after the server had imported ${name}: it stays (${plural(answer.job.trajectories, 'trajectory', 'trajectories')})`
    : `: ${name} had already ended on the server (${answer.job.status})`;
}

/** How often an import job on the server is read while the CLI follows it. */
const FOLLOW_MS = 500;
/** How long the CLI waits for a server that stopped answering (a restart) before it leaves. */
const SERVER_AWAY_MS = 120_000;

/**
 * Reads the import job until it ends. A server that stops answering (restarted, say) is waited
 * for: its job goes on from its last stored part when it is back, and so does this. A refusal
 * (a token it no longer takes, a job it does not have) ends the wait at once.
 */
async function followServerImport(
  target: { url: string; token: string },
  job: ImportJobView,
  halted: AbortSignal,
  progress: ProgressSink,
  onView: (view: ImportJobView) => void,
): Promise<ImportJobView> {
  const name = job.files[0]?.name ?? 'the file';
  let awaySince: number | null = null;
  // Said once per file: a restarting server can drop out twice (down, then busy taking the job
  // up again), and the same line twice reads as two restarts.
  let told = false;
  for (;;) {
    const view = await fetchImportJob(target.url, target.token, job.id);
    // Interrupted: the process exits once the cancel is said; nothing more is read or reported.
    if (halted.aborted) return new Promise<never>(() => {});
    if (view === 'away') {
      awaySince ??= Date.now();
      if (!told) {
        told = true;
        progress.note(
          `terrarium: the server at ${target.url} stopped answering; the import of ${name} is its job and goes on when it is back: waiting for it…\n`,
        );
      }
      if (Date.now() - awaySince > SERVER_AWAY_MS) {
        throw new CliError(
          `the server at ${target.url} has not answered for ${SERVER_AWAY_MS / 60_000} minutes; import ${job.id} of ${name} is its job and goes on when it is back (its Import page shows it)`,
        );
      }
    } else {
      awaySince = null;
      onView(view);
      if (view.status !== 'queued' && view.status !== 'running') return view;
    }
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_MS));
  }
}

/** What an ended job of the server imported, or why it imported nothing. */
function reportOfEndedJob(dataset: string, file: DataFile, job: ImportJobView): ImportReport {
  if (job.status === 'done' && job.report !== null) return job.report;
  const reason =
    job.status === 'canceled'
      ? 'canceled on the server (its Import page, or another client): nothing of it was kept'
      : (job.error ?? 'the import stopped');
  return failedFileReport(dataset, file, new Error(reason));
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
    ...withWrongFormatFiles(
      reports.reduce((sum, report) => sum + (report.wrongFormatFiles ?? 0), 0),
    ),
  };
}

function withUnknownFormatFiles(count: number): Pick<ImportReport, 'unknownFormatFiles'> {
  return count === 0 ? {} : { unknownFormatFiles: count };
}

function withStoppedFiles(count: number): Pick<ImportReport, 'stoppedFiles'> {
  return count === 0 ? {} : { stoppedFiles: count };
}

function withWrongFormatFiles(count: number): Pick<ImportReport, 'wrongFormatFiles'> {
  return count === 0 ? {} : { wrongFormatFiles: count };
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

/** A reason with the byte it happened at, unless the reader already named it ("NUL byte at byte offset 19"). */
function withByteOffset(reason: string, byteOffset: number): string {
  return new RegExp(`\\bbyte (offset )?${byteOffset}\\b`).test(reason)
    ? reason
    : `${reason} (at byte ${byteOffset})`;
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
          ? withByteOffset(error.reason, error.byteOffset)
          : error.reason,
    })),
    ...withWarnings(report.warnings ?? []),
    ...withAlreadyStored(report.alreadyStored ?? 0),
    ...withUnknownFormatFiles(report.unknownFormatFiles ?? 0),
    ...withStoppedFiles(report.stoppedFiles ?? 0),
    ...withWrongFormatFiles(report.wrongFormatFiles ?? 0),
  };
}

const ERRORS_SHOWN = 20;

function printSummary(report: ImportReport, target: DataTarget): void {
  const via = target.kind === 'server' ? ` through the server at ${target.url}` : '';
  const format = report.format ? ` (${report.format})` : '';
  const repeated = alreadyStoredNote(report);
  // Nothing stored and nothing already there: the result first, not "Imported 0 …" (walk 46).
  const nothing = report.trajectories === 0 && repeated === null;
  const lines = [
    nothing
      ? `Nothing was imported into dataset "${report.dataset}"${via}.`
      : `Imported ${plural(report.trajectories, 'trajectory', 'trajectories')}, ${plural(report.transitions, 'transition')}${format} into dataset "${report.dataset}"${via}.`,
  ];
  if (report.quarantined > 0) {
    lines.push(
      `${report.quarantined} bad ${report.quarantined === 1 ? 'record' : 'records'} quarantined.`,
    );
  }
  const unread = unreadFilesNote(report);
  if (unread !== null) lines.push(`${unread} (named below).`);
  if (repeated !== null) lines.push(repeated);
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
