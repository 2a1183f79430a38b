import type { FormatAdapter } from '../adapter';
import { agentWorldBenchAdapter } from './agentworldbench';
import { atifAdapter } from './atif';
import { interCodeAdapter } from './intercode';
import { interCodeHumanSqlAdapter } from './intercode-human-sql';
import { miniSweAgentAdapter } from './mini-swe-agent';
import { openAiMessagesAdapter } from './openai-messages';
import { openHandsEvalOutputAdapter, openHandsEventsAdapter } from './openhands';
import { shareGptAdapter, shareGptArrayAdapter } from './sharegpt';
import { sweAgentAdapter } from './swe-agent';
import { tauBenchV1Adapter } from './tau-bench-v1';
import { tau2BenchAdapter } from './tau2-bench';

/**
 * Every format adapter, in detection priority order: the reader uses the first whose `sniff` claims a
 * file. Formats recognised by distinctive keys come first; the generic chat shapes last.
 */
export const ADAPTERS: FormatAdapter[] = [
  tau2BenchAdapter,
  tauBenchV1Adapter,
  interCodeHumanSqlAdapter,
  interCodeAdapter,
  sweAgentAdapter,
  atifAdapter,
  miniSweAgentAdapter,
  agentWorldBenchAdapter,
  openHandsEvalOutputAdapter,
  openHandsEventsAdapter,
  shareGptAdapter,
  shareGptArrayAdapter,
  openAiMessagesAdapter,
];

export {
  agentWorldBenchAdapter,
  atifAdapter,
  interCodeAdapter,
  interCodeHumanSqlAdapter,
  miniSweAgentAdapter,
  openAiMessagesAdapter,
  openHandsEvalOutputAdapter,
  openHandsEventsAdapter,
  shareGptAdapter,
  shareGptArrayAdapter,
  sweAgentAdapter,
  tauBenchV1Adapter,
  tau2BenchAdapter,
};
export { domainOfBenchmark } from './domains';
export { guessObservationKind, type KindHints } from './observation-kind';
export { inferToolSchemas, normalizeToolSchemas } from './tool-schemas';
export { rowActionText, rowObservationText, OBSERVATION_MARKER } from './agentworldbench-layout';
