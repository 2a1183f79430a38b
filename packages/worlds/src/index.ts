export * from './world-model';
export * from './trajectory-inputs';
export { canonicalJson } from './canonical-json';
export { cyrb53, hashText } from './hash';
export { actionText, actionHead, actionKey, observationKey } from './action-text';
export { predictedKind } from './observation-kind';
export * from './unanswered';
export { splitReasoning, type SplitReply } from './reasoning';
export * from './prompt/template';
export {
  compileTemplate,
  fillTemplate,
  placeholdersOf,
  TemplateSyntaxError,
} from './prompt/placeholders';
export * from './backends/replay';
export * from './backends/retrieval';
export * from './backends/cacheable';
export * from './backends/cache-then-model';
export * from './backends/circuit-breaker';
export * from './openai/allowlist';
export * from './openai/clock';
export * from './openai/errors';
export { networkFailure } from './openai/network-failure';
export type { ChatRequest } from './openai/chat-protocol';
export * from './openai/endpoint-pool';
export * from './openai/transport';
export * from './openai/openai-world-model';
export * from './agentworldbench/markers';
export * from './agentworldbench/model-output';
export * from './agentworldbench/protocol';
export * from './agentworldbench/prompt-folder';
