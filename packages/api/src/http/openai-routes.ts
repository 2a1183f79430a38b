import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import type { PromptNeighbor } from '@terrarium/inference';
import {
  createCacheThenModelWorldModel,
  unansweredReason,
  type Prediction,
  type PredictOptions,
  type PromptFolder,
  type WorldModel,
} from '@terrarium/worlds';
import { z } from 'zod';
import { errorMessage } from '../import/import-files';
import { ChatInputError, parseChatToSimInput, type SimInput } from '../simulate/chat-input';
import { findDataset } from '../simulate/find-trajectory';
import { asChatCarriesIt } from '../simulate/chat-input';
import { loadDataset } from '../simulate/load-trajectories';
import {
  datasetSimulator,
  onnxModel,
  openAIModel,
  recordedCorpus,
  type RecordedCorpus,
} from '../simulate/resolve-simulator';
import { speakingOfficially } from '../simulate/official-simulator';
import {
  availableSimulators,
  endpointAllowlistFromEnv,
  parseSimSpec,
  SimulatorError,
} from '../simulate/sim-spec';
import { sendJson } from './json-response';
import { BodyError, readJsonBody } from './read-json-body';

export const DATASET_HEADER = 'x-terrarium-dataset';

/**
 * An optional parameter, where null means "not given" as in OpenAI's API (wrappers such as
 * LangChain send `"max_tokens": null` for a parameter left unset).
 */
function unset<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

export const ChatCompletionRequest = z.object({
  model: z.string().min(1),
  messages: z.array(z.unknown()).min(1),
  stream: unset(z.boolean()),
  temperature: unset(z.number().min(0).max(2)),
  max_tokens: unset(z.number().int().positive()),
  max_completion_tokens: unset(z.number().int().positive()),
  stop: unset(z.union([z.string(), z.array(z.string())])),
  seed: unset(z.number().int()),
  /** A simulator gives one observation per request: more choices are refused, not dropped. */
  n: unset(z.literal(1, { error: 'only 1 choice per request is served' })),
  /**
   * Token log-probabilities are not served (replay and retrieval generate no tokens); refused
   * rather than answered with `logprobs: null`, which a trainer would read as missing data.
   */
  logprobs: unset(z.literal(false, { error: 'token log-probabilities are not served' })),
  top_logprobs: unset(z.literal(0, { error: 'token log-probabilities are not served' })),
  /**
   * Terrarium's extension. `dataset` (id or name): what replay and retrieval draw on, and where a
   * local retrieval-augmented model (`onnx:`) finds the recorded transitions its prompt shows
   * (without it, the model reads the action alone). `neighbors: true`: the answer's `terrarium`
   * object lists those transitions.
   */
  terrarium: z
    .object({ dataset: z.string().min(1).optional(), neighbors: z.boolean().optional() })
    .optional(),
});
type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** The OpenAI-compatible routes: their every error, the server's refusals included, is OpenAI's shape. */
export function isOpenAIPath(pathname: string): boolean {
  return pathname === '/v1/models' || pathname === '/v1/chat/completions';
}

/** An error in the OpenAI shape, which OpenAI clients (and packages/worlds' client) read. */
export function sendOpenAIError(
  response: ServerResponse,
  status: number,
  message: string,
  param: string | null = null,
): void {
  sendJson(response, status, {
    error: {
      message,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      param,
      code: null,
    },
  });
}

/**
 * The `model` ids served: every available simulator, and for replay and retrieval also
 * `replay@DATASET` per dataset, so a client that can only set a model name still picks the data.
 */
async function modelIds(store: Store): Promise<string[]> {
  const specs = availableSimulators().map((sim) => sim.spec);
  const datasets = await store.listDatasets();
  // A local model's prompt shows the dataset's nearest recorded transitions: `onnx:…@DATASET`.
  const scopable = ['replay', 'retrieval', ...specs.filter((spec) => spec.startsWith('onnx:'))];
  const perDataset = scopable.flatMap((kind) =>
    datasets.map((dataset) => `${kind}@${dataset.name}`),
  );
  return [...specs, ...perDataset];
}

/**
 * `onnx:FOLDER@DATASET`: a configured local model whose prompts draw neighbors from the dataset,
 * for clients that can set only a model name (Terrarium's own `openai:` simulators among them).
 */
function scopedOnnx(model: string): { spec: string; dataset: string } | null {
  const at = model.lastIndexOf('@');
  if (!model.startsWith('onnx:') || at === -1) return null;
  const spec = model.slice(0, at);
  return availableSimulators().some((sim) => sim.spec === spec)
    ? { spec, dataset: model.slice(at + 1) }
    : null;
}

// One model per configured endpoint, so its concurrency limit holds across requests.
const endpointModels = new Map<string, WorldModel>();

interface Served {
  model: WorldModel;
  /**
   * True when the text given to `onToken` is exactly the observation (a local model, no
   * reasoning channel), so tokens can be forwarded as they come. An endpoint's pieces mix
   * reasoning and content without saying which, so its answer goes out once complete.
   */
  streamsTokens: boolean;
  /** The neighbors a local model's prompt showed, once it has predicted (null: it read none). */
  shown: { neighbors: readonly PromptNeighbor[] } | null;
}

/**
 * `replay@DATASET+FALLBACK` / `retrieval@DATASET+FALLBACK`: the dataset's recordings first, the
 * fallback simulator (`retrieval`, or a configured `openai:`/`onnx:` spec) for what they miss.
 */
function splitModelId(model: string): { kind: string; dataset?: string; fallback?: string } {
  const scoped = /^(replay|retrieval|cache)@(.+)$/.exec(model);
  if (scoped?.[1] === undefined || scoped[2] === undefined) return { kind: model };
  const rest = scoped[2];
  // The fallback is what follows the last `+` that starts a simulator spec (names may hold `+`).
  const plus = [...rest.matchAll(/\+(?=retrieval$|openai:|onnx:)/g)].at(-1);
  if (plus === undefined) return { kind: scoped[1], dataset: rest };
  return {
    kind: scoped[1],
    dataset: rest.slice(0, plus.index),
    fallback: rest.slice(plus.index + 1),
  };
}

/** A simulator that is not tied to a dataset, as `model` names it: configured specs only. */
async function configuredModel(
  spec: string,
  field: string,
  prompts: PromptFolder | null,
  corpus?: RecordedCorpus,
): Promise<Served> {
  if (!availableSimulators().some((sim) => sim.spec === spec)) {
    throw new SimulatorError(
      field,
      `"${spec}" is not a configured simulator; GET /v1/models lists them (configure more in TERRARIUM_SIMULATORS)`,
      404,
    );
  }
  const parsed = parseSimSpec(spec, field);
  if (parsed.kind === 'onnx') {
    if (corpus === undefined) {
      return {
        model: await onnxModel(spec, parsed.path, {}, field),
        streamsTokens: true,
        shown: null,
      };
    }
    // Built per request (the loaded folder is cached), so what the prompt showed is this one's.
    const shown: { neighbors: readonly PromptNeighbor[] } = { neighbors: [] };
    const model = await onnxModel(spec, parsed.path, {}, field, {
      ...corpus,
      onNeighbors: (neighbors) => {
        shown.neighbors = neighbors;
      },
    });
    return { model, streamsTokens: true, shown };
  }
  if (parsed.kind !== 'openai') throw new SimulatorError(field, `cannot serve "${spec}"`);
  // `serve --prompts DIR`: the endpoint is spoken to as the official script does.
  const official = prompts !== null;
  const key = `${official}\u0000${spec}`;
  let model = endpointModels.get(key);
  if (model === undefined) {
    model = openAIModel(
      parsed.baseUrl,
      parsed.model,
      {
        allowlist: endpointAllowlistFromEnv(),
        ...(official ? { protocol: 'agentworldbench' as const } : {}),
      },
      field,
    );
    if (official) model = speakingOfficially(model, null);
    endpointModels.set(key, model);
  }
  return { model, streamsTokens: false, shown: null };
}

/** The fallback a model id names after `+`: retrieval over the dataset, or a configured model. */
async function fallbackModel(
  store: Store,
  datasetId: string,
  fallbackSpec: string,
  prompts: PromptFolder | null,
): Promise<WorldModel> {
  return fallbackSpec === 'retrieval'
    ? datasetSimulator(store, 'retrieval', datasetId, { chat: true, leaveOutRecorded: true })
    : (await configuredModel(fallbackSpec, 'model', prompts)).model;
}

/**
 * `replay@D+F` and `retrieval@D+F`: the first answers when it can, and a miss goes to the fallback
 * alone. Nothing in between: a recorded answer reaches the client only when replay matched the
 * whole chat, so `+retrieval`'s leave-out holds and a hand-written chat is the fallback's to answer.
 */
function withFallback(primary: WorldModel, fallback: WorldModel): WorldModel {
  return {
    id: `${primary.id}+${fallback.id}`,
    async predict(context, history, action, options) {
      const first = await primary.predict(context, history, action, options);
      if (first.provenance.cache !== 'miss') return first;
      return fallback.predict(context, history, action, options);
    },
  };
}

/**
 * `cache@D+F`, as StableToolBench's virtual API server: a call the dataset recorded (same tool
 * and canonical arguments, or the same command), in any context, gets its recorded response;
 * any other goes to the fallback. Asked for by name, since it answers a recorded run's own calls.
 */
async function cachedCalls(
  store: Store,
  datasetId: string,
  fallback: WorldModel,
): Promise<WorldModel> {
  return createCacheThenModelWorldModel({
    trajectories: (await loadDataset(store, datasetId)).map(asChatCarriesIt),
    model: fallback,
  });
}

/**
 * The dataset a request names, with where it named it: the `terrarium.dataset` field first, then
 * the header, then the model id (`retrieval@DATASET`). A dataset not found is blamed on that
 * place, the one the client wrote (walk 52: `model: "retrieval@nope"` blamed `terrarium.dataset`,
 * which was never sent).
 */
function namedDataset(
  body: ChatCompletionRequest,
  headerDataset: string | undefined,
  modelDataset: string | undefined,
): { ref: string; field: string } | null {
  if (body.terrarium?.dataset !== undefined)
    return { ref: body.terrarium.dataset, field: 'terrarium.dataset' };
  if (headerDataset !== undefined) return { ref: headerDataset, field: DATASET_HEADER };
  if (modelDataset !== undefined) return { ref: modelDataset, field: 'model' };
  return null;
}

async function simulatorFor(
  store: Store,
  body: ChatCompletionRequest,
  headerDataset: string | undefined,
  prompts: PromptFolder | null,
): Promise<Served> {
  const { kind, dataset: scopedDataset, fallback } = splitModelId(body.model);
  if (kind === 'cache') {
    if (fallback === undefined || scopedDataset === undefined)
      throw new SimulatorError(
        'model',
        `${body.model}: cache@DATASET needs a fallback for calls the dataset never recorded, e.g. "cache@${scopedDataset ?? 'DATASET'}+retrieval" or "+openai:URL#MODEL"`,
      );
    const dataset = await findDataset(store, scopedDataset, 'model');
    return {
      model: await cachedCalls(
        store,
        dataset.id,
        await fallbackModel(store, dataset.id, fallback, prompts),
      ),
      streamsTokens: false,
      shown: null,
    };
  }
  if (kind === 'replay' || kind === 'retrieval') {
    const named = namedDataset(body, headerDataset, scopedDataset);
    if (named === null) {
      throw new SimulatorError(
        'terrarium.dataset',
        `${kind} needs a dataset: set the "terrarium": {"dataset": ID_OR_NAME} field, the X-Terrarium-Dataset header, or use the model id "${kind}@DATASET"`,
      );
    }
    const dataset = await findDataset(store, named.ref, named.field);
    // A chat names no trajectory: retrieval leaves out the recorded run the chat's own history
    // and action come from (as a bench leaves out its item's trajectory), else it would be replay.
    const model = await datasetSimulator(store, kind, dataset.id, {
      chat: true,
      leaveOutRecorded: kind === 'retrieval',
    });
    return {
      model:
        fallback === undefined
          ? model
          : withFallback(model, await fallbackModel(store, dataset.id, fallback, prompts)),
      streamsTokens: false,
      shown: null,
    };
  }
  const scoped = scopedOnnx(body.model);
  const spec = scoped?.spec ?? body.model;
  const named = namedDataset(body, headerDataset, scoped?.dataset);
  if (named === null || !spec.startsWith('onnx:')) {
    return configuredModel(spec, 'model', prompts);
  }
  const dataset = await findDataset(store, named.ref, named.field);
  return configuredModel(spec, 'model', prompts, await recordedCorpus(store, dataset.id));
}

/** The roles of a chat a world model reads: its setting, then actions and observations. */
const CHAT_ROLES: readonly string[] = ['system', 'user', 'assistant'];

/**
 * The chat as a world model's input, a role no such chat has refused first by name. The reading
 * checks the order of the roles, and would word an unknown one as a misplaced one (walk 52:
 * `"wizard"` was told `expected "user": the last message is the current action`).
 */
function simInputOf(messages: readonly unknown[]): SimInput {
  messages.forEach((message, at) => {
    if (typeof message !== 'object' || message === null || !('role' in message)) return;
    const { role } = message;
    if (typeof role !== 'string' || CHAT_ROLES.includes(role)) return;
    // Cut, since the error goes back whole and a body may be megabytes.
    const shown = role.length > 40 ? `${role.slice(0, 40)}…` : role;
    throw new ChatInputError(
      `messages[${at}].role`,
      `${JSON.stringify(shown)} is not a role of this chat: expected "system" (the setting, first), "user" (an action) or "assistant" (its observation)`,
    );
  });
  return parseChatToSimInput(messages);
}

/**
 * A replay miss is not an answer: an empty 200 would pass for an empty observation, so the client
 * gets an OpenAI-style error naming why (and how to name a fallback).
 */
function missError(body: ChatCompletionRequest, prediction: Prediction): SimulatorError | null {
  const reason = unansweredReason(prediction.provenance);
  if (reason === null) return null;
  const named = /\+(retrieval|openai:|onnx:)/.test(body.model);
  // Only fallbacks that can answer: retrieval misses where nothing recorded is like the action, so
  // after a retrieval miss it would miss again; a model (local or served) always answers.
  const fallbacks = body.model.startsWith('retrieval')
    ? [`${body.model}+onnx:models/terrarium-wm-tiny`, `${body.model}+openai:URL#MODEL`]
    : [`${body.model}+retrieval`, `${body.model}+openai:URL#MODEL`];
  return new SimulatorError(
    'model',
    `${body.model}: ${reason}` +
      (named ? '' : `; name a fallback for misses, e.g. "${fallbacks[0]}" or "${fallbacks[1]}"`),
    404,
  );
}

function predictOptionsOf(body: ChatCompletionRequest, signal: AbortSignal): PredictOptions {
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  return {
    signal,
    ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(stop === undefined ? {} : { stop }),
    ...(body.seed === undefined ? {} : { seed: body.seed }),
  };
}

function usageOf(prediction: Prediction) {
  const { inputTokens, outputTokens } = prediction.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
}

/**
 * What a client may want to know beyond the OpenAI fields: where the answer came from, and when
 * it asked (`terrarium.neighbors`), the recorded transitions a local model's prompt showed.
 */
function terrariumExtension(prediction: Prediction, neighbors: readonly PromptNeighbor[] | null) {
  return {
    provenance: prediction.provenance,
    latencyMs: prediction.latencyMs,
    ...(neighbors === null ? {} : { neighbors }),
  };
}

/**
 * OpenAI's `finish_reason`: `length` when the token budget or the model's context cut the answer
 * (a local model's and an upstream endpoint's reason are in the provenance), `stop` otherwise.
 */
/**
 * `stop` for answers no model generated (replay and retrieval return a recorded observation): the
 * text before the first stop string, as a generating server would have ended it. A model's own
 * output already ends before one, so this changes nothing there.
 */
function cutAtStop(prediction: Prediction, stop: readonly string[] | undefined): Prediction {
  const content = prediction.observation.content;
  const at = Math.min(
    ...(stop ?? []).map((text) => (text === '' ? -1 : content.indexOf(text))).filter((i) => i >= 0),
  );
  if (!Number.isFinite(at)) return prediction;
  return {
    ...prediction,
    observation: { ...prediction.observation, content: content.slice(0, at) },
  };
}

function finishReasonOf(prediction: Prediction): 'stop' | 'length' {
  const reason = prediction.provenance.detail?.['finishReason'];
  return reason === 'length' || reason === 'context' ? 'length' : 'stop';
}

function sseEvent(response: ServerResponse, data: unknown): void {
  response.write(`data: ${JSON.stringify(data)}\n\n`);
}

/** A `chat.completion.chunk` stream: role first, then text, then finish, usage and `[DONE]`. */
function openStream(
  response: ServerResponse,
  model: string,
  neighbors: () => readonly PromptNeighbor[] | null,
) {
  const base = {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
  };
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  const delta = (fields: Record<string, string>, finishReason: string | null = null) =>
    sseEvent(response, {
      ...base,
      choices: [{ index: 0, delta: fields, finish_reason: finishReason }],
    });
  delta({ role: 'assistant', content: '' });
  return {
    delta,
    finish(prediction: Prediction, streamed: boolean) {
      if (!streamed) {
        if (prediction.reasoning !== undefined) delta({ reasoning_content: prediction.reasoning });
        if (prediction.observation.content !== '') {
          delta({ content: prediction.observation.content });
        }
      }
      delta({}, finishReasonOf(prediction));
      sseEvent(response, {
        ...base,
        choices: [],
        usage: usageOf(prediction),
        terrarium: terrariumExtension(prediction, neighbors()),
      });
      response.end('data: [DONE]\n\n');
    },
  };
}

function sendCompletion(
  response: ServerResponse,
  model: string,
  prediction: Prediction,
  neighbors: readonly PromptNeighbor[] | null,
): void {
  sendJson(response, 200, {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: prediction.observation.content,
          ...(prediction.reasoning === undefined
            ? {}
            : { reasoning_content: prediction.reasoning }),
        },
        finish_reason: finishReasonOf(prediction),
      },
    ],
    usage: usageOf(prediction),
    terrarium: terrariumExtension(prediction, neighbors),
  });
}

async function respondToChatCompletion(
  request: IncomingMessage,
  response: ServerResponse,
  store: Store,
  prompts: PromptFolder | null,
): Promise<void> {
  const disconnected = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnected.abort(new Error('client disconnected'));
  });
  try {
    const parsed = ChatCompletionRequest.safeParse(await readJsonBody(request));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') ?? '';
      return sendOpenAIError(
        response,
        400,
        `${field || 'body'}: ${issue?.message ?? 'invalid request'}`,
        field || null,
      );
    }
    const body = parsed.data;
    const header = request.headers[DATASET_HEADER];
    const served = await simulatorFor(
      store,
      body,
      typeof header === 'string' ? header : undefined,
      prompts,
    );
    const input = simInputOf(body.messages);
    const options = predictOptionsOf(body, disconnected.signal);
    const neighbors = () =>
      body.terrarium?.neighbors === true && served.shown !== null ? served.shown.neighbors : null;
    if (body.stream !== true || !served.streamsTokens) {
      const prediction = cutAtStop(
        await served.model.predict(input.context, input.history, input.action, options),
        options.stop,
      );
      const miss = missError(body, prediction);
      if (miss !== null) throw miss;
      if (body.stream !== true) {
        return sendCompletion(response, body.model, prediction, neighbors());
      }
      return openStream(response, body.model, neighbors).finish(prediction, false);
    }
    const stream = openStream(response, body.model, neighbors);
    try {
      const prediction = await served.model.predict(input.context, input.history, input.action, {
        ...options,
        onToken: (text) => stream.delta({ content: text }),
      });
      stream.finish(prediction, true);
    } catch (error) {
      // The status line is out: cutting the stream is the only way left to say it failed.
      console.error('POST /v1/chat/completions failed while streaming:', error);
      response.destroy();
    }
  } catch (error) {
    if (disconnected.signal.aborted) return;
    if (error instanceof SimulatorError) {
      return sendOpenAIError(response, error.status, error.message, error.field);
    }
    if (error instanceof ChatInputError) {
      return sendOpenAIError(response, 400, error.message, error.field);
    }
    if (error instanceof BodyError) return sendOpenAIError(response, error.status, error.message);
    console.error('POST /v1/chat/completions failed:', error);
    return sendOpenAIError(response, 502, `the simulator failed: ${errorMessage(error)}`);
  }
}

/**
 * Terrarium's simulators behind the OpenAI protocol: `GET /v1/models` and
 * `POST /v1/chat/completions` (streaming with `stream: true`).
 */
export async function respondToOpenAI(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  store: Store,
  /** `serve --prompts DIR`: `openai:` simulators speak the official protocol. */
  prompts: PromptFolder | null = null,
): Promise<void> {
  const route =
    url.pathname === '/v1/models'
      ? { method: 'GET', run: async () => listModels(response, store) }
      : url.pathname === '/v1/chat/completions'
        ? { method: 'POST', run: () => respondToChatCompletion(request, response, store, prompts) }
        : null;
  if (route === null) {
    request.resume();
    return sendOpenAIError(response, 404, `no route ${url.pathname}`);
  }
  if (request.method !== route.method) {
    request.resume();
    response.setHeader('allow', route.method);
    return sendOpenAIError(response, 405, `${url.pathname} answers ${route.method}`);
  }
  return route.run();
}

async function listModels(response: ServerResponse, store: Store): Promise<void> {
  const created = Math.floor(Date.now() / 1000);
  sendJson(response, 200, {
    object: 'list',
    data: (await modelIds(store)).map((id) => ({
      id,
      object: 'model',
      created,
      owned_by: 'terrarium',
    })),
  });
}
