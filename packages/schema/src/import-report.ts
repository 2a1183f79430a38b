import { z } from 'zod';
import { SourceFormat } from './trajectory';

// Beside real trajectory files sit licences, notes and configs; inside a folder (the CLI's, or one
// picked on the Import page) these are skipped silently, while a file named on its own is always
// tried (and reported if unreadable).
const NOT_DATA = [/^(licen[cs]e|copying|notice|readme)([._-][\w-]*)?$/i, /\.(md|ya?ml)$/i];

/** "a, b, c, d, e, and 3 more": the first names of a list a user is told was left out. */
export function someNames(names: readonly string[], shown = 5): string {
  const more = names.length > shown ? `, and ${names.length - shown} more` : '';
  return `${names.slice(0, shown).join(', ')}${more}`;
}

/** Whether a file found in a folder is a licence, a note, a config or hidden: not trajectories. */
export function isObviouslyNotData(fileName: string): boolean {
  return fileName.startsWith('.') || NOT_DATA.some((pattern) => pattern.test(fileName));
}

/** An error with a place: which file, which line (or byte offset), and why. */
export const ImportError = z.object({
  file: z.string(),
  /** 1-based line where the bad record starts; null when only a byte offset is known. */
  line: z.number().int().nullable(),
  byteOffset: z.number().int().nullable(),
  reason: z.string(),
});
export type ImportError = z.infer<typeof ImportError>;

/**
 * Something an import kept but the user should know: a file that was read but gives nothing to
 * learn from (e.g. 0 transitions), or a record that imported with a value kept as it was (tool-call
 * arguments that are not JSON), and why.
 */
export const ImportWarning = z.object({
  file: z.string(),
  /** 1-based line where the record the warning is about starts; absent for the file as a whole. */
  line: z.number().int().optional(),
  reason: z.string(),
});
export type ImportWarning = z.infer<typeof ImportWarning>;

/**
 * Where a warning is about, as the CLI prints it and the Import page lists it: `file.jsonl:7`, or
 * the file alone; null for file `*`, the import as a whole.
 */
export function warningPlace(warning: ImportWarning): string | null {
  if (warning.file === '*') return null;
  return warning.line === undefined ? warning.file : `${warning.file}:${warning.line}`;
}

/** A warning in one line: `file.jsonl:7: messages[3]…: not valid JSON (kept as text)`. */
export function warningText(warning: ImportWarning): string {
  const place = warningPlace(warning);
  return place === null ? warning.reason : `${place}: ${warning.reason}`;
}

/** What `terrarium import --json` prints and what the UI shows after an upload. */
export const ImportReport = z.object({
  dataset: z.string(),
  format: z.union([SourceFormat, z.literal('mixed')]).nullable(),
  trajectories: z.number().int(),
  transitions: z.number().int(),
  quarantined: z.number().int(),
  errors: z.array(ImportError),
  /** Files recognized and read that yield no transitions, with the reason. Absent when none. */
  warnings: z.array(ImportWarning).optional(),
  /**
   * Trajectories read that the dataset already held byte for byte (the file was imported before):
   * not stored again, and not counted in `trajectories`. Absent when none.
   */
  alreadyStored: z.number().int().positive().optional(),
  /**
   * Files in no known format (a CSV, a config, a binary or empty file): nothing of them was read as
   * data, and each is named in `errors` with the reason (for JSON, the keys of its first record).
   * Absent when none.
   */
  unknownFormatFiles: z.number().int().positive().optional(),
  /**
   * Files whose reading stopped on an error after their format was known (unreadable past a point,
   * not the format named with --format): each is named in `errors`, and what it held before the
   * error is imported. Absent when none.
   */
  stoppedFiles: z.number().int().positive().optional(),
  /**
   * Files that are not of the format named with --format (each named in `errors`, with the format
   * detection reads it as): nothing of them was imported. Absent when none.
   */
  wrongFormatFiles: z.number().int().positive().optional(),
});
export type ImportReport = z.infer<typeof ImportReport>;

/**
 * The import's summary of the files it did not read whole, as the CLI and the Import page both say
 * it: "1 file is in no known format, 2 files could not be read to their end"; null when none. A file
 * in no known format is not said to have stopped: nothing of it was read as data (walk: a CSV was
 * "1 file could not be read to its end").
 */
export function unreadFilesNote(report: ImportReport): string | null {
  const unknown = report.unknownFormatFiles ?? 0;
  const stopped = report.stoppedFiles ?? 0;
  const wrongFormat = report.wrongFormatFiles ?? 0;
  const parts = [
    wrongFormat === 0
      ? ''
      : wrongFormat === 1
        ? '1 file is not of the format given with --format'
        : `${wrongFormat} files are not of the format given with --format`,
    unknown === 0
      ? ''
      : unknown === 1
        ? '1 file is in no known format'
        : `${unknown} files are in no known format`,
    stopped === 0
      ? ''
      : stopped === 1
        ? '1 file could not be read to its end'
        : `${stopped} files could not be read to their end`,
  ].filter((part) => part !== '');
  return parts.length === 0 ? null : parts.join(', ');
}

/**
 * What an import says of the trajectories it did not store because the dataset held them already,
 * in one sentence for the whole import (the CLI and the Import page print it); null when none.
 */
export function alreadyStoredNote(report: ImportReport): string | null {
  const count = report.alreadyStored;
  if (count === undefined) return null;
  const subject =
    report.trajectories === 0
      ? `All ${count} trajectories read`
      : `${count} of the trajectories read`;
  return `${count === 1 && report.trajectories === 0 ? 'The 1 trajectory read' : subject} ${count === 1 ? 'was' : 'were'} in ${report.dataset} already, byte for byte (imported before?), and ${count === 1 ? 'was' : 'were'} not stored again.`;
}

/**
 * Exit codes of `terrarium import`: everything in, some quarantined, nothing in. A file whose
 * trajectories were all in the dataset already is in: importing it again is not a failure.
 */
export function importExitCode(report: ImportReport): 0 | 1 | 2 {
  if (report.trajectories + (report.alreadyStored ?? 0) === 0) return 1;
  return report.quarantined > 0 || report.errors.length > 0 ? 2 : 0;
}

export const IMPORT_JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'canceled'] as const;
export const ImportJobStatus = z.enum(IMPORT_JOB_STATUSES);
export type ImportJobStatus = z.infer<typeof ImportJobStatus>;

/** An import as a job (the Import page and `terrarium import`): progress, outcome, resumes. */
export const ImportJobView = z.object({
  id: z.string(),
  dataset: z.string(),
  /**
   * The id of the dataset of that name now: null before it exists, and once it is deleted (a
   * finished import's dataset may be gone since: the page says so rather than "imported" alone).
   */
  datasetId: z.string().nullable(),
  format: SourceFormat.nullable(),
  /** As the user named them; where the server keeps them is not shown. */
  files: z.array(z.object({ name: z.string(), size: z.number() })),
  status: ImportJobStatus,
  totalBytes: z.number(),
  /** Bytes behind the groups stored so far (a resumed import starts from there). */
  doneBytes: z.number(),
  /** Trajectories stored so far (all of them once done). */
  trajectories: z.number().int(),
  /** Times the import was taken up again after its process stopped mid-way. */
  resumes: z.number().int(),
  report: ImportReport.nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ImportJobView = z.infer<typeof ImportJobView>;
