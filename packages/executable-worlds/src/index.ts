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
export { pythonJsonDumps } from './tool/python-json';
export {
  applyRenames,
  executeRead,
  keyRenames,
  learnReadMappings,
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
export { measureToolReads, type ReadCounts, type ToolReadReport } from './tool/tool-sufficiency';
