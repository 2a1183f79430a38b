import type { Migration } from './migration';

/**
 * Import speed. A trajectory's source record was stored as `json`: PostgreSQL parsed and validated
 * the whole record (as many bytes as the file) and then pglz-compressed it, which measured about
 * half of an import's time in PGlite. New rows keep it as raw-deflate bytes of the record's JSON
 * text instead, compressed by the importer (import-rows.ts); the key order and spelling are
 * those of the text, so export stays lossless. Rows written before keep their `json` value; a read
 * takes whichever of the two columns is set.
 *
 * The two search indexes get a 256 MB pending list (the default is 4 MB): GIN then merges new
 * entries in a few large passes instead of one every few thousand steps, and the importer merges
 * what is left when a batch commits (import-batch.ts). Measured on a 32 MB import: the steps'
 * insert went from 24x to 19x a bare JSON.parse, with the final merge at 1.7x.
 */
export const performanceSchema: Migration = {
  version: 7,
  name: 'performance',
  sql: `
ALTER TABLE trajectories ALTER COLUMN source_record DROP NOT NULL;
ALTER TABLE trajectories ADD COLUMN source_record_deflated bytea;
ALTER TABLE trajectories ADD CONSTRAINT trajectories_source_record_present
  CHECK (source_record IS NOT NULL OR source_record_deflated IS NOT NULL);
-- Already compressed: pglz would only spend time failing to shrink it.
ALTER TABLE trajectories ALTER COLUMN source_record_deflated SET STORAGE EXTERNAL;
ALTER INDEX steps_search SET (gin_pending_list_limit = 262144);
ALTER INDEX trajectories_search SET (gin_pending_list_limit = 262144);
`,
};
