export type { BenchRunDeps, UnitScores } from './bench-run-deps';
export { BENCH_RUN_QUEUE, ChunkJob } from './chunk-job';
export {
  createEndpointLimits,
  DEFAULT_ENDPOINT_LIMITS,
  endpointKey,
  type EndpointLimitDefaults,
  type EndpointLimits,
} from './endpoint-limits';
export { createJobQueue, type JobQueue, type JobQueueOptions } from './job-queue';
export { runBenchChunk, type ChunkOutcome, type ChunkRuntime } from './run-bench-chunk';
export { resumeRuns } from './resume-runs';
export { watchRun, type RunProgress, type WatchOptions } from './watch-run';
export { ChunkReleasedError, startWorker, type BenchWorker, type WorkerOptions } from './worker';
export {
  createRejudgeJobs,
  runRejudge,
  type CompleteJudge,
  type RejudgeJobs,
  type RejudgeProgress,
  type RejudgeSpec,
} from './rejudge';
export {
  createRuleSetScoringJobs,
  runRuleSetScoring,
  type RuleSetScoringJobs,
  type RuleSetScoringProgress,
  type RuleSetScoringSpec,
} from './rule-set-scoring';
export { perKey, type BackgroundJobs, type JobProgress } from './background-jobs';
export {
  CURRICULUM_RUN_QUEUE,
  CurriculumJob,
  CurriculumRunSettings,
  executeCurriculumRun,
  type CurriculumRunDeps,
  type CurriculumRunOutcome,
} from './curriculum-run';
export {
  startCurriculumJobs,
  type CurriculumJobs,
  type CurriculumJobsOptions,
  type StartCurriculumRun,
} from './curriculum-jobs';
export {
  importFiles,
  reportOf,
  runImport,
  type ImportFile,
  type ImportOptions,
  type ImportProgress,
  type RunImportOptions,
} from './import/import-run';
export { ImportCheckpoint, MAX_LISTED_ERRORS } from './import/import-protocol';
export {
  runImportJob,
  reportOfJob,
  type ImportJobOutcome,
  type RunImportJobOptions,
} from './import/import-job';
export {
  IMPORT_QUEUE,
  startImportJobs,
  type ImportJobs,
  type ImportJobsOptions,
} from './import/import-jobs';
export { siblingModule, startWorkerThread } from './worker-thread';
