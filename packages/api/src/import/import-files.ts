/**
 * Import is done by packages/jobs (a reading thread and the store's writer, import-run.ts), so that
 * imports run as jobs next to bench and curriculum runs; these names stay here for the API's users.
 */
export {
  importFiles,
  MAX_LISTED_ERRORS,
  type ImportFile,
  type ImportOptions,
  type ImportProgress,
} from '@terrarium/jobs';

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
