import { predictedKind } from '../observation-kind';
import {
  DEFAULT_TEMPLATES,
  renderMessages,
  selectTemplate,
  type PromptTemplate,
} from '../prompt/template';
import { splitReasoning } from '../reasoning';
import { actionText } from '../action-text';
import { parseModelOutput } from '../agentworldbench/model-output';
import { AGENTWORLDBENCH_SAMPLING, worldModelMessages } from '../agentworldbench/protocol';
import type { ChatMessage } from '../prompt/template';
import type { SimContext, Transition } from '../world-model';
import type { Action } from '@terrarium/schema';
import { answeredCallId, type Prediction, type WorldModel } from '../world-model';
import { systemClock } from './clock';
import {
  createEndpointPool,
  type EndpointConfig,
  type EndpointPool,
  type EndpointStats,
  type PoolOptions,
} from './endpoint-pool';

interface ModelOptions {
  id?: string;
  /** Prompt templates to pick from by domain (default: the AgentWorldBench ones). */
  templates?: readonly PromptTemplate[];
  /** Default true: stream replies (server-sent events). */
  stream?: boolean;
  /**
   * `agentworldbench`: the official protocol. The caller passes turns already written as the
   * official rows write them (see packages/bench `protocolItem`); they are sent verbatim (system =
   * the context's system prompt, left out when empty), at temperature 0.6 and 32,768 tokens unless
   * the caller sets them, and the prediction is read from the reply as the official scorer reads
   * it (reasoning removed, the last `<predicted_observation>` block). Default: Terrarium's
   * templates.
   */
  protocol?: 'templates' | 'agentworldbench';
}

/** The official chat for (context, history, action) whose texts are already in the row layout. */
export function agentWorldBenchChat(
  context: SimContext,
  history: readonly Transition[],
  action: Action,
): ChatMessage[] {
  return worldModelMessages({
    systemPrompt: context.systemPrompt,
    prompts: history.map((turn) => actionText(turn.action)),
    responses: history.map((turn) => turn.observation.content),
    currentPrompt: actionText(action),
    turnIdx: history.length + 1,
  });
}

export type OpenAIWorldModelOptions =
  | (ModelOptions & EndpointConfig & PoolOptions)
  | (ModelOptions & { pool: EndpointPool; now?: () => number });

export interface OpenAIWorldModel extends WorldModel {
  readonly pool: EndpointPool;
  stats(): EndpointStats[];
}

/**
 * A world model served by any OpenAI-compatible `/v1/chat/completions` (vLLM, SGLang, Ollama,
 * llama.cpp server): the prompt is rendered from the domain's template, reasoning is split off the
 * reply, and the rest is the predicted observation. Either one endpoint (`baseUrl`, `model`…) or a
 * pool of several made with `createEndpointPool`.
 */
export function createOpenAIWorldModel(options: OpenAIWorldModelOptions): OpenAIWorldModel {
  const pool = 'pool' in options ? options.pool : createEndpointPool([options], options);
  const now =
    'pool' in options
      ? (options.now ?? (() => performance.now()))
      : (options.clock ?? systemClock).now;
  const templates = options.templates ?? DEFAULT_TEMPLATES;
  const models = [...new Set(pool.endpoints.map((endpoint) => endpoint.model))].join(',');
  return {
    id: options.id ?? `openai:${models}`,
    pool,
    stats: () => pool.stats(),
    async predict(context, history, action, predictOptions = {}): Promise<Prediction> {
      const official = options.protocol === 'agentworldbench';
      const template = selectTemplate(templates, context.domain);
      const messages = official
        ? agentWorldBenchChat(context, history, action)
        : renderMessages(template, context, history, action);
      const maxTokens =
        predictOptions.maxTokens ?? (official ? AGENTWORLDBENCH_SAMPLING.maxTokens : undefined);
      const started = now();
      const onToken = predictOptions.onToken;
      const result = await pool.complete({
        messages,
        temperature:
          predictOptions.temperature ?? (official ? AGENTWORLDBENCH_SAMPLING.temperature : 0),
        ...(maxTokens === undefined ? {} : { maxTokens }),
        ...(predictOptions.stop === undefined ? {} : { stop: predictOptions.stop }),
        ...(predictOptions.seed === undefined ? {} : { seed: predictOptions.seed }),
        ...(predictOptions.signal === undefined ? {} : { signal: predictOptions.signal }),
        ...(onToken === undefined ? {} : { onToken: (text: string) => onToken(text) }),
        // The official script asks for whole replies; so does its protocol here.
        stream: options.stream ?? !official,
      });
      const latencyMs = now() - started;
      const reply = official
        ? officialReply(result.content, result.reasoningContent)
        : splitReasoning(result.content, result.reasoningContent);
      return {
        observation: {
          kind: predictedKind(reply.observation, context.domain),
          content: reply.observation,
          callId: answeredCallId(action),
        },
        ...(reply.reasoning === undefined ? {} : { reasoning: reply.reasoning }),
        usage: result.usage ?? { inputTokens: 0, outputTokens: 0 },
        latencyMs,
        provenance: {
          backend: 'openai',
          cache: null,
          model: result.model,
          detail: {
            endpoint: result.endpoint,
            attempts: result.attempts,
            template: official ? 'agentworldbench-official' : `${template.id}@${template.version}`,
            finishReason: result.finishReason,
            usageReported: result.usage !== null,
            costUsd: result.costUsd,
          },
        },
      };
    },
  };
}

/** The official reading of a reply; the full reply is kept as reasoning when anything was cut. */
function officialReply(content: string, reasoningContent: string | null | undefined) {
  const observation = parseModelOutput(content);
  const parts = [reasoningContent ?? '', observation === content.trim() ? '' : content].filter(
    (part) => part !== '',
  );
  return parts.length === 0 ? { observation } : { observation, reasoning: parts.join('\n') };
}
