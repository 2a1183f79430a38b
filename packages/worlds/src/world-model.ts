import type { Action, Domain, JsonValue, Observation, ToolSchema } from '@terrarium/schema';

/** What a simulator knows about the episode besides its history: the agent's setting. */
export interface SimContext {
  domain: Domain;
  task: string | null;
  systemPrompt: string | null;
  tools: ToolSchema[];
}

/** One (action, observation) pair the environment produced. */
export interface Transition {
  action: Action;
  observation: Observation;
}

export interface PredictOptions {
  /** Default 0, so that predictions are repeatable. */
  temperature?: number;
  /** Output budget, reasoning included; thinking models need 32k and more. */
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  signal?: AbortSignal;
  /** Called with each piece of generated text as it streams in (reasoning included, as sent). */
  onToken?: (text: string) => void;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type CacheOutcome = 'hit' | 'miss' | null;

export interface Provenance {
  /** `replay`, `retrieval`, `cache-then-model`, `openai`… */
  backend: string;
  /** `hit`/`miss` for backends that look up recorded transitions; null for a pure model. */
  cache: CacheOutcome;
  model?: string;
  detail?: { [key: string]: JsonValue };
}

export interface Prediction {
  observation: Observation;
  reasoning?: string;
  usage: Usage;
  latencyMs: number;
  provenance: Provenance;
}

/** A simulator: predicts the environment's next observation. */
export interface WorldModel {
  id: string;
  predict(
    context: SimContext,
    history: Transition[],
    action: Action,
    options?: PredictOptions,
  ): Promise<Prediction>;
}

/** Milliseconds from an arbitrary origin; injected so that domain code reads no clock itself. */
export type Now = () => number;

export const NO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/** The call id a predicted observation answers: the action's own, when it has one. */
export function answeredCallId(action: Action): string | null {
  return action.type === 'tool_call' ? action.callId : null;
}
