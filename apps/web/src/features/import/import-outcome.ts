import { alreadyStoredNote, unreadFilesNote, type ImportReport } from '@terrarium/schema';
import { plural } from '../../app/format';

/** How an import ended, in the user's words (the CLI's exit codes stay in the CLI). */
export interface ImportVerdict {
  tone: 'done' | 'partial' | 'failed';
  /** The badge beside the file name. */
  label: string;
  /** What to know beyond the badge, or null when everything read was imported. */
  detail: string | null;
}

/** Reads a finished import's report: imported, imported with problems, or nothing imported. */
export function importVerdict(report: ImportReport): ImportVerdict {
  const problems = [
    report.quarantined > 0
      ? `${plural(report.quarantined, 'record was', 'records were')} set aside as unreadable`
      : '',
    unreadFilesNote(report) ?? '',
  ].filter((text) => text !== '');
  const repeated = alreadyStoredNote(report);
  if (report.trajectories === 0 && repeated !== null) {
    return {
      tone: problems.length > 0 ? 'partial' : 'done',
      label: 'already imported',
      detail: problems.length > 0 ? `${repeated} Also: ${problems.join(', ')}.` : repeated,
    };
  }
  if (report.trajectories === 0) {
    return {
      tone: 'failed',
      label: 'nothing imported',
      detail:
        problems.length > 0
          ? `Nothing could be imported from this file: ${problems.join(', ')}.`
          : 'Nothing could be imported from this file: it holds no trajectory Terrarium can read.',
    };
  }
  if (problems.length > 0) {
    return {
      tone: 'partial',
      label: 'imported with problems',
      detail: `${plural(report.trajectories, 'trajectory was', 'trajectories were')} imported; ${problems.join(', ')} (listed below).${repeated === null ? '' : ` ${repeated}`}`,
    };
  }
  return { tone: 'done', label: 'imported', detail: repeated };
}
