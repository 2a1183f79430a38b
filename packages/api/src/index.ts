export { appRouter, type AppRouter } from './router';
export type { ApiContext, FieldIssue } from './trpc';
export { MAX_STEP_WINDOW, MAX_TRAJECTORY_PAGE } from './trajectories/router';
export {
  importFiles,
  MAX_LISTED_ERRORS,
  type ImportFile,
  type ImportOptions,
  type ImportProgress,
} from './import/import-files';
export {
  collectDataFiles,
  isObviouslyNotData,
  readDataFile,
  type DataFile,
} from './import/collect-files';
export {
  createApiRequestHandler,
  type ApiHandlerOptions,
  type ApiRequestHandler,
  type HealthReport,
} from './http/api-routes';
export { ImportParams, respondToImport, type ImportResponse } from './http/import-route';
export type { ApiErrorBody } from './http/json-response';
export { TERRARIUM_VERSION } from './version';
