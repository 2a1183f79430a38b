import { stat } from 'node:fs/promises';
import path from 'node:path';
import { collectDataFiles, importFiles, readDataFile, type DataFile } from '@terrarium/api';
import {
  importExitCode,
  SOURCE_FORMATS,
  SourceFormat,
  type ImportReport,
  type ImportWarning,
} from '@terrarium/schema';
import { CliError } from '../cli-error';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { byteProgress, type ProgressSink } from '../progress';
import { uploadFile } from '../server-client';

export interface ImportCommandOptions extends GlobalOptions {
  format?: string;
  dataset?: string;
  json?: boolean;
}

/** `terrarium import PATH...`: sets the exit code 0 (all in), 2 (some quarantined) or 1 (nothing in). */
export async function runImport(paths: string[], options: ImportCommandOptions): Promise<void> {
  const format = parseFormat(options.format);
  const firstPath = paths[0];
  if (firstPath === undefined) throw new CliError('name at least one file or folder to import');
  const dataset = options.dataset ?? (await defaultDatasetName(firstPath));
  const files = await collectFiles(paths);

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

async function collectFiles(paths: string[]): Promise<DataFile[]> {
  for (const given of paths) {
    const exists = await stat(given).then(
      () => true,
      () => false,
    );
    if (!exists) throw new CliError(`no such file or folder: ${given}`);
  }
  return collectDataFiles(paths);
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
    for (const file of files) {
      const report = await uploadFile(target.url, file, {
        dataset,
        format,
        token: target.token,
        onBytes: (byteLength) =>
          progress.advance(byteLength, { file: file.name, trajectories: trajectoriesSoFar }),
      }).catch((error: unknown) => failedFileReport(dataset, file, error));
      trajectoriesSoFar += report.trajectories;
      reports.push(report);
    }
    return mergeReports(dataset, reports);
  }

  const interrupted = new AbortController();
  const stopOnSignal = () =>
    interrupted.abort(new CliError('import interrupted; nothing was kept'));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  let lastBytes = 0;
  let lastFile = '';
  try {
    return await importFiles(target.store, files.map(readDataFile), {
      dataset,
      format,
      signal: interrupted.signal,
      onProgress: ({ file, bytesRead, trajectories }) => {
        if (file !== lastFile) lastBytes = 0;
        lastFile = file;
        progress.advance(bytesRead - lastBytes, { file, trajectories });
        lastBytes = bytesRead;
      },
    });
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
  }
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
  };
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
  };
}

const ERRORS_SHOWN = 20;

function printSummary(report: ImportReport, target: DataTarget): void {
  const via = target.kind === 'server' ? ` through the server at ${target.url}` : '';
  const format = report.format ? ` (${report.format})` : '';
  const lines = [
    `Imported ${report.trajectories} trajectories, ${report.transitions} transitions${format} into dataset "${report.dataset}"${via}.`,
  ];
  if (report.quarantined > 0) lines.push(`${report.quarantined} bad records quarantined.`);
  if (report.trajectories === 0) lines.push('Nothing was imported.');
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
    process.stderr.write(`warning: ${warning.file}: ${warning.reason}\n`);
}
