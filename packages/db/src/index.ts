export * from './store';
export { openStore, openOnExecutor, PGLITE_SUBDIR } from './open-store';
export {
  acquireDataDir,
  DataDirBusyError,
  isProcessAlive,
  readServerInfo,
  removeServerInfo,
  resolveDataDir,
  writeServerInfo,
  type DataDirLock,
  type ServerInfo,
} from './data-dir';
export type { Queryable, Row, SqlExecutor, SqlSession } from './executor';
export { createPgliteExecutor } from './pglite-executor';
export { createPgExecutor } from './pg-executor';
export { runMigrations, StoreSchemaTooNewError } from './migrate';
export { MIGRATIONS, type Migration } from './migrations';
export { MAX_STEP_WINDOW } from './sql-store';
export type * from './label-store';
export type * from './rule-set-store';
export type * from './curriculum-store';
export type * from './env-catalog-store';
export type * from './import-job-store';
export {
  GroupEncoder,
  type EncodedGroup,
  type EncodeItem,
  type PendingRow,
  type FallbackText,
} from './import-rows';
