export { appRouter, type AppRouter } from './router';
export type { ApiContext, FieldIssue, ServiceContext } from './trpc';
export {
  ANONYMOUS_PRINCIPAL,
  INTERNAL_ERROR_MESSAGE,
  isResearcher,
  PROGRAM_PRINCIPAL,
  type Principal,
  type Role,
} from './trpc';
export {
  AccountRefusal,
  addUser,
  NewUserInput,
  Password,
  removeAccount,
  setAccountPassword,
  setAccountRole,
  UserExistsError,
  type StoredUser,
} from './auth/users';
export { LOCAL_OWNER, sessionCookieName } from './auth/sessions';
export { fileSystemReason, isErrnoException } from './file-system-reason';
export {
  HTTP_ROUTE_POLICIES,
  routeAccess,
  type Access,
  type RoutePolicy,
} from './http/route-policy';
export { MAX_REQUEST_BODY_BYTES, MAX_UPLOAD_BYTES } from './http/api-routes';
export { localOwnerLink } from './http/request-gate';
export { MAX_STEP_WINDOW, MAX_TRAJECTORY_PAGE } from './trajectories/router';
export {
  importFiles,
  MAX_LISTED_ERRORS,
  type ImportFile,
  type ImportOptions,
  type ImportProgress,
} from './import/import-files';
export { startImportWorkers } from './imports/import-workers';
export type { ImportJobs } from '@terrarium/jobs';
export { importJobView } from './imports/import-jobs-view';
export {
  collectDataFiles,
  findDataFiles,
  readDataFile,
  type DataFile,
  type FoundFiles,
} from './import/collect-files';
export {
  createApiRequestHandler,
  type ApiHandlerOptions,
  type ApiRequestHandler,
  type HealthReport,
} from './http/api-routes';
export { ImportParams, respondToImport, type ImportResponse } from './http/import-route';
export { TERRARIUM_VERSION } from './version';
export {
  availableSimulators,
  endpointAllowlistFromEnv,
  parseSimSpec,
  SimulatorError,
  type AvailableSimulator,
  type ParsedSimSpec,
} from './simulate/sim-spec';
export {
  datasetSimulator,
  resolveSimulator,
  type DatasetSimulatorOptions,
  type ResolveOptions,
} from './simulate/resolve-simulator';
export {
  requireTrajectory,
  simulateTrajectory,
  type SimulateOptions,
} from './simulate/simulate-trajectory';
export {
  forkTrajectory,
  forkTrajectoryEvents,
  MAX_FORK_CONTINUE_STEPS,
  type ForkEvent,
  type ForkOptions,
  type ForkOrigin,
  type ForkRequest,
  type ForkResult,
} from './simulate/fork-trajectory';
export { findDataset, findTrajectory } from './simulate/find-trajectory';
export { loadDataset, loadTrajectory, listDatasetTrajectories } from './simulate/load-trajectories';
export {
  asChatCarriesIt,
  ChatInputError,
  parseActionText,
  parseChatToSimInput,
  parseObservationText,
  parseSystemMessage,
  type SimInput,
} from './simulate/chat-input';
export { MAX_SIMULATED_STEPS } from './simulate/router';
export { SimulateParams } from './http/simulate-route';
export { DATASET_HEADER, respondToOpenAI } from './http/openai-routes';
export {
  cancelRun,
  deleteBench,
  deleteRun,
  queuesHoldLabelsText,
  resumeRun,
  retryFailedUnits,
  stopJudge,
  type DeletedBench,
  type DeletedRun,
} from './bench/run-lifecycle';
export { judgePairwise, type PairsToJudge } from './bench/pairwise-judging';
export {
  benchItems,
  buildBenchFromDatasets,
  cellItems,
  getRun,
  leaderboard,
  listBenches,
  listRuns,
  report,
  requireBench,
  chartSlices,
  startRun,
  watchRun,
  type BenchRunner,
  type BuildBenchInput,
  type StartRunInput,
} from './bench/bench-service';
export { DEFAULT_BOOTSTRAP } from './bench/run-leaderboard';
export {
  startBenchWorkers,
  type BenchWorkers,
  type BenchWorkersOptions,
} from './bench/bench-workers';
export { createBenchRunDeps, type BenchRunDepsOptions } from './bench/run-deps';
export { runLeaderboard } from './bench/run-leaderboard';
export { predictBenchItem, type ItemPrediction } from './bench/item-prediction';
export { runReport, type RunReport, type SimReport } from './bench/run-report';
export { runResults } from './bench/run-results';
export { deleteDataset, type DeletedDataset } from './datasets/delete-dataset';
export { benchCorpus, createBenchSimulators } from './bench/bench-simulators';
export {
  agentWorldBenchLines,
  BENCH_EXPORT_FORMATS,
  importAgentWorldBench,
  linesOf,
  sftExport,
  type BenchExportFormat,
  type BenchImportResult,
  type SftExport,
} from './bench/bench-files';
export { createJudge, type Judge, type JudgeOptions } from './bench/judge';
export { readPromptFolder } from './bench/prompt-folder-files';
export { BENCH_IMPORT_PATH, MAX_BENCH_UPLOAD_BYTES } from './http/bench-import-route';
export {
  promptFilesHash,
  promptFilesOf,
  promptFolderOfFiles,
  runPromptsSummary,
} from './bench/run-prompts';
export { officialProtocolSimulator, officialSystemPrompt } from './simulate/official-simulator';
export type { PromptFolder } from '@terrarium/worlds';
export type { LabelingItem } from './labels/label-service';
export type { QueueAgreement } from './labels/agreement-service';
export { createDefaultEnvService, isEnvPath, respondToEnv } from './http/env-routes';
export { openApiDocument, ENV_OPENAPI_PATH } from './http/openapi';
export type { OpenApiPart } from './http/openapi-schemas';
export type { CurriculumJobs } from '@terrarium/jobs';
export {
  startCurriculumWorkers,
  type CurriculumWorkersOptions,
} from './curriculum/curriculum-workers';
export {
  availablePolicies,
  BUILTIN_DATASET,
  checkCurriculumSim,
  createCurriculumRunDeps,
  curriculumPolicy,
  curriculumSeeds,
  ONNX_POLICY_TEMPERATURE,
  type AvailablePolicy,
  type CurriculumDepsOptions,
} from './curriculum/curriculum-deps';
export { exportCurriculumTasks } from './curriculum/task-export';
export type { RolloutDivergence, TaskDivergences } from '@terrarium/curriculum';
export type { GenerationStatsRecord as CurriculumGenerationStats } from '@terrarium/curriculum';
export type { WorldsReport } from './worlds/measure-worlds';
