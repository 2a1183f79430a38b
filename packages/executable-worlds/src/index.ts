export type * from './world';
export {
  buildTerminalWorld,
  createTerminalWorld,
  UNSUPPORTED_PROGRAMS,
  programsOf,
} from './terminal/terminal-world';
export {
  WorkspaceReconstruction,
  reconstructWorkspace,
  type ReconstructOptions,
  type ReconstructionStats,
} from './terminal/reconstruct';
export { CowFs } from './terminal/cow-fs';
export { mayMutate, parseLine } from './terminal/shell-words';
export {
  measureSufficiency,
  replaySufficiency,
  trimReport,
  shellCommandOf,
  isHarnessReply,
  imageOf,
  Counts,
  Outcome,
  SufficiencyReport,
  TrajectorySufficiency,
  TransitionCheck,
  type SufficiencyOptions,
  type TrimOptions,
} from './sufficiency';
export { planIntercodeAction, shlexSplit, simplifyPath } from './terminal/intercode-transport';
export {
  parseMysqlDump,
  type ColumnInfo,
  type DumpDatabase,
  type TableInfo,
} from './sql/mysql-dump';
export { createSqlWorld } from './sql/sql-world';
export {
  measureSqlSufficiency,
  sqlFamily,
  type SqlSufficiencyOptions,
} from './sql/sql-sufficiency';
export { pythonRows, pythonString, pythonValue } from './sql/python-repr';
export {
  sampleWorkspace,
  seededRandom,
  DEFAULT_PARAMETERS,
  type SampledWorkspace,
  type WorldParameters,
} from './params/sample-workspace';
export {
  pythonJsonDumps,
  floatKeysOf,
  parseOrderedJson,
  type JsonFormat,
} from './tool/python-json';
export {
  applyRenames,
  executeRead,
  keyRenames,
  learnReadMappings,
  toolDatabaseFrom,
  databaseLookup,
  learnShapes,
  type LearnOptions,
  type RecordLookup,
  type KeyRename,
  type ReadMapping,
  type RecordedToolCall,
  type ToolDatabase,
} from './tool/learn-reads';
export {
  buildToolWorld,
  createToolWorld,
  recordedToolCalls,
  type ToolWorld,
  type ToolWorldOptions,
} from './tool/tool-world';
export {
  measureToolReads,
  type MeasureToolOptions,
  type ReadCounts,
  type ToolReadReport,
  type WriteCounts,
} from './tool/tool-sufficiency';
export { cloneJson, type ToolHandler, type ToolHandlers, type ToolState } from './tool/tool-state';
export {
  domainOptions,
  tau2RetailDomain,
  tau2TelecomDomain,
  tau2Initialization,
  tauAirlineDomain,
  type ToolDomain,
} from './tool/domains/tool-domains';
export {
  TAU_AIRLINE_ALL,
  TAU_AIRLINE_TOOLS,
  TAU_AIRLINE_UPDATES,
} from './tool/domains/tau-airline';
export { TAU2_RETAIL_NOT_FOUND, TAU2_RETAIL_TOOLS } from './tool/domains/tau2-retail';
export { calculate, ToolError } from './tool/domains/python-values';
export { inferToolSchemas } from './tool/infer-schemas';
export { TAU2_TELECOM_INITIALIZATION, TAU2_TELECOM_TOOLS } from './tool/domains/tau2-telecom';
export { parseTomlSubset, TomlSubsetError } from './tool/toml-subset';
