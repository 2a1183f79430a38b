import { predictedKind } from '../observation-kind';
import {
  DEFAULT_TEMPLATES,
  renderMessages,
  selectTemplate,
  type PromptTemplate,
} from '../prompt/template';
import { splitReasoning } from '../reasoning';
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
      const template = selectTemplate(templates, context.domain);
      const messages = renderMessages(template, context, history, action);
      const started = now();
      const onToken = predictOptions.onToken;
      const result = await pool.complete({
        messages,
        temperature: predictOptions.temperature ?? 0,
        ...(predictOptions.maxTokens === undefined ? {} : { maxTokens: predictOptions.maxTokens }),
        ...(predictOptions.stop === undefined ? {} : { stop: predictOptions.stop }),
        ...(predictOptions.seed === undefined ? {} : { seed: predictOptions.seed }),
        ...(predictOptions.signal === undefined ? {} : { signal: predictOptions.signal }),
        ...(onToken === undefined ? {} : { onToken: (text: string) => onToken(text) }),
        stream: options.stream ?? true,
      });
      const latencyMs = now() - started;
      const reply = splitReasoning(result.content, result.reasoningContent);
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
            template: `${template.id}@${template.version}`,
            finishReason: result.finishReason,
            usageReported: result.usage !== null,
            costUsd: result.costUsd,
          },
        },
      };
    },
  };
}
