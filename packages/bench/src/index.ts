export {
  buildBench,
  benchItemId,
  benchContentHash,
  splitOf,
  trajectoryItems,
  type BenchSource,
  type BuildBenchInput,
  type BuiltBench,
} from './build-bench';
export { sampleTurnIndices } from './sampling';
export {
  hashText,
  canonicalJson,
  compareCodeUnits,
  seededRandom,
  seedFromText,
  unitFromText,
} from './hash';
export {
  scoreItem,
  scoreClassifiedItem,
  classifyItem,
  itemHistory,
  contentDetail,
  CONTENT_METRIC,
  MAX_MISMATCHES_SHOWN,
  type ClassifiedItem,
} from './score-item';
export {
  AgentWorldBenchRecord,
  AGENTWORLDBENCH_KEYS,
  parseAgentWorldBenchLine,
  benchItemsFromAgentWorldBench,
  createAgentWorldBenchReader,
  toAgentWorldBenchRecord,
  formatAgentWorldBenchLine,
  agentWorldBenchLine,
  itemRowTurns,
  isImportedItem,
  type RowTurn,
  importedBenchManifest,
  simulatorSystemPrompt,
  type AgentWorldBenchError,
  type AgentWorldBenchParse,
  type AgentWorldBenchImport,
} from './agentworldbench/records';
export { pythonJson } from './agentworldbench/python-json';
export { agentWorldBenchExportLines, itemTrajectoryKey } from './agentworldbench/export-lines';
export {
  sftRecords,
  benchTrajectoryFilter,
  type SftRecord,
  type SftOptions,
} from './sft/sft-records';
export {
  findLeaks,
  dropLeakingRecords,
  LEAK_NGRAM,
  type Leak,
  type LeakFreeSft,
} from './sft/leaks';
export {
  leaderboard,
  cellsFromAggregates,
  groupIntervals,
  OVERALL_TASK,
  MACRO_TASK,
  type GroupAggregate,
  type GroupStrata,
  type Interval,
  type LeaderboardOptions,
} from './report/leaderboard';
export { runResult } from './report/run-results';
export { crossTaskTwins, TWIN_MIN_CALLS, TWIN_SHARE } from './twins';
export {
  compareCells,
  compareRuns,
  focusValues,
  itemDeltas,
  pairedDeltas,
  placeDelta,
  type FocusValue,
  type ItemMove,
  type ItemPlace,
  type RunScores,
  type RunComparison,
  type CompareOptions,
} from './report/compare-runs';
export { RUBRICS, RUBRIC_DOMAINS, rubricFor, type RubricDomain } from './judge/rubrics';
export {
  judgePrompt,
  turingPrompt,
  pairwisePrompt,
  clipMiddle,
  JUDGE_SYSTEM_PROMPT,
  type JudgePromptOptions,
} from './judge/prompt';
export {
  parseJudgeAnswer,
  parseTuringAnswer,
  parsePairwiseAnswer,
  type JudgeParse,
  type JudgeRawScores,
  type Choice,
} from './judge/parse';
export {
  judgeItemScores,
  turingItemScore,
  turingOrder,
  pairwiseItemScores,
  pairwiseOrder,
  JUDGE_OVERALL,
  TURING_METRIC,
} from './judge/scores';
export { closedLoopHistory, closedLoopTurns, itemAtTurn, rollOut } from './closed-loop';
export {
  officialJudgeMessages,
  officialJudgeScores,
  parseVerdict,
  DEFAULT_JUDGE_USER_TEMPLATE,
  VERDICT_TAG,
  type Verdict,
} from './agentworldbench/official-judge';
export { protocolInput } from './agentworldbench/protocol-input';
