import { neighborAnchor } from '../anchor';
import { canConstrain, type Decoder } from '../decoder';
import { declaresByteTokenizer } from '../model-tokenizer';
import { buildPrompt, observationGrammar } from '../prompt';
import {
  MODEL_FILE_OF_VARIANT,
  WorkerRequest,
  type GenerateRequest,
  type LoadRequest,
  type MessageEndpoint,
  type ModelSourceMessage,
  type ModelVariant,
  type WorkerReply,
} from './decode-protocol';
import { loadOnnxModelWeb, type LoadedWebModel } from './load-model-web';

export interface DecodeServiceOptions {
  /** Reads served model files (default: the global fetch). */
  fetch?: typeof fetch;
  /** Default: `yieldToEventLoop` (see WebLoadOptions.beforeRun). */
  beforeRun?: () => Promise<void>;
}

/**
 * A macrotask boundary without `setTimeout`'s clamping (browsers delay nested timeouts to 4 ms,
 * which would cap decoding at 250 tokens/s): a message posted to oneself.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.addEventListener(
      'message',
      () => {
        channel.port1.close();
        resolve();
      },
      { once: true },
    );
    channel.port1.start();
    // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a MessagePort: no target origin
    channel.port2.postMessage(null);
  });
}

interface ModelFiles {
  config: unknown;
  model: Uint8Array;
  tokenizerJson: unknown;
  tokenizerConfig: unknown;
  variant: ModelVariant;
  modelFile: string;
  variantNote: string | null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readServedFiles(
  base: string,
  variant: ModelVariant,
  fetchFile: typeof fetch,
  headers: Record<string, string>,
): Promise<ModelFiles> {
  const get = async (file: string): Promise<Response | null> => {
    const response = await fetchFile(`${base}${file}`, { headers });
    if (response.status === 404) return null;
    if (!response.ok)
      throw new Error(`GET ${base}${file}: ${response.status} ${response.statusText}`);
    return response;
  };
  const json = async (file: string): Promise<unknown> => {
    const response = await get(file);
    return response === null ? undefined : response.json();
  };
  const config = await json('config.json');
  if (config === undefined) throw new Error(`GET ${base}config.json: 404 (no model folder there)`);
  let modelFile = MODEL_FILE_OF_VARIANT[variant];
  let used = variant;
  let variantNote: string | null = null;
  let response = await get(modelFile);
  if (response === null && variant === 'int8') {
    // A folder without a quantized file (a user's export, an older model) still runs in fp32.
    variantNote = `this folder has no ${modelFile}: the fp32 model ran instead`;
    used = 'fp32';
    modelFile = MODEL_FILE_OF_VARIANT.fp32;
    response = await get(modelFile);
  }
  if (response === null) throw new Error(`GET ${base}${modelFile}: 404`);
  const model = new Uint8Array(await response.arrayBuffer());
  // A byte-level Terrarium model reads no tokenizer file.
  const [tokenizerJson, tokenizerConfig] = declaresByteTokenizer(config)
    ? [undefined, undefined]
    : await Promise.all([json('tokenizer.json'), json('tokenizer_config.json')]);
  return { config, model, tokenizerJson, tokenizerConfig, variant: used, modelFile, variantNote };
}

async function readBlobJson(blob: Blob | null): Promise<unknown> {
  return blob === null ? undefined : JSON.parse(await blob.text());
}

async function readModelFiles(
  source: ModelSourceMessage,
  variant: ModelVariant,
  fetchFile: typeof fetch,
): Promise<ModelFiles> {
  if (source.kind === 'url') {
    return readServedFiles(source.base, variant, fetchFile, source.headers ?? {});
  }
  const config: unknown = JSON.parse(await source.config.text());
  const bytes = declaresByteTokenizer(config);
  const quantized = source.model instanceof File && source.model.name.includes('quantized');
  return {
    config,
    model: new Uint8Array(await source.model.arrayBuffer()),
    tokenizerJson: bytes ? undefined : await readBlobJson(source.tokenizer),
    tokenizerConfig: bytes ? undefined : await readBlobJson(source.tokenizerConfig),
    // Picked files are run as picked: the variant is the file's.
    variant: quantized ? 'int8' : 'fp32',
    modelFile: source.model instanceof File ? source.model.name : 'model.onnx',
    variantNote: null,
  };
}

/**
 * The worker side: loads models with onnxruntime-web and decodes prompts, streaming each piece of
 * text back as a `token` message; a `cancel` aborts a decode between two tokens. A served folder
 * is loaded once per (folder, variant, provider); every load of picked files is a new model.
 */
export function serveDecoding(endpoint: MessageEndpoint, options: DecodeServiceOptions = {}): void {
  const fetchFile = options.fetch ?? ((input, init) => fetch(input, init));
  const beforeRun = options.beforeRun ?? yieldToEventLoop;
  const models = new Map<
    string,
    Promise<{ files: Omit<ModelFiles, 'model'> & { modelBytes: number }; loaded: LoadedWebModel }>
  >();
  const running = new Map<number, AbortController>();
  let loads = 0;
  const post = (reply: WorkerReply) => endpoint.send(reply);

  async function load(request: LoadRequest): Promise<void> {
    const started = performance.now();
    const handle =
      request.source.kind === 'url'
        ? `${request.source.base}|${request.variant}|${request.executionProvider}`
        : `files#${++loads}|${request.source.label}`;
    try {
      let loading = models.get(handle);
      if (loading === undefined) {
        loading = readModelFiles(request.source, request.variant, fetchFile).then(
          async ({ model, ...files }) => ({
            // The model's bytes are not kept: the session holds its own copy.
            files: { ...files, modelBytes: model.byteLength },
            loaded: await loadOnnxModelWeb({
              config: files.config,
              model,
              tokenizerJson: files.tokenizerJson,
              tokenizerConfig: files.tokenizerConfig,
              executionProvider: request.executionProvider,
              wasmThreads: request.wasmThreads,
              beforeRun,
            }),
          }),
        );
        models.set(handle, loading);
        loading.catch(() => models.delete(handle));
      }
      const { files, loaded } = await loading;
      post({
        type: 'loaded',
        id: request.id,
        model: handle,
        config: files.config,
        executionProvider: loaded.executionProvider,
        fallbackReason: loaded.fallbackReason,
        variant: files.variant,
        modelFile: files.modelFile,
        variantNote: files.variantNote,
        modelBytes: files.modelBytes,
        wasmThreads: request.wasmThreads,
        milliseconds: performance.now() - started,
      });
    } catch (error) {
      post({ type: 'failed', id: request.id, message: messageOf(error), aborted: false });
    }
  }

  async function decoderOf(model: string): Promise<Decoder> {
    const loading = models.get(model);
    if (loading === undefined) throw new Error(`no model "${model}" is loaded`);
    return (await loading).loaded.decoder;
  }

  async function generate(request: GenerateRequest): Promise<void> {
    const controller = new AbortController();
    running.set(request.id, controller);
    try {
      const decoder = await decoderOf(request.model);
      const ids =
        typeof request.prompt === 'string'
          ? decoder.tokenizer.encode(request.prompt)
          : buildPrompt(request.prompt, decoder.tokenizer).ids;
      // As the server's ONNX simulator decides (createOnnxWorldModel).
      const grammar =
        typeof request.prompt === 'string'
          ? request.grammar
          : canConstrain(decoder.tokenizer)
            ? observationGrammar(request.prompt.neighbors, request.prompt.domain)
            : undefined;
      const anchor =
        typeof request.prompt === 'string' ? undefined : neighborAnchor(request.prompt.neighbors);
      const started = performance.now();
      const result = await decoder.generate(ids, {
        ...(anchor === undefined ? {} : { anchor }),
        maxTokens: request.maxTokens,
        temperature: request.temperature ?? 0,
        topK: request.topK ?? 0,
        seed: request.seed ?? 0,
        stop: request.stop ?? [],
        stopCycles: request.stopCycles ?? true,
        ...(grammar === undefined ? {} : { grammar }),
        signal: controller.signal,
        onToken: (text) => post({ type: 'token', id: request.id, text }),
      });
      post({
        type: 'generated',
        id: request.id,
        prompt: decoder.tokenizer.describe(ids),
        text: result.text,
        tokens: result.tokens,
        closing: result.closing,
        referenceTail: result.referenceTail,
        grammar: result.heldToJson ? 'json' : null,
        promptTokens: result.promptTokens,
        finishReason: result.finishReason,
        milliseconds: performance.now() - started,
      });
    } catch (error) {
      post({
        type: 'failed',
        id: request.id,
        message: controller.signal.aborted ? 'stopped' : messageOf(error),
        aborted: controller.signal.aborted,
      });
    } finally {
      running.delete(request.id);
    }
  }

  endpoint.onMessage((data) => {
    const parsed = WorkerRequest.safeParse(data);
    if (!parsed.success) {
      const id: unknown =
        typeof data === 'object' && data !== null ? Reflect.get(data, 'id') : undefined;
      post({
        type: 'failed',
        id: typeof id === 'number' ? id : -1,
        message: `the decoding worker got a malformed request: ${parsed.error.message}`,
        aborted: false,
      });
      return;
    }
    const request = parsed.data;
    if (request.type === 'load') void load(request);
    else if (request.type === 'generate') void generate(request);
    else running.get(request.id)?.abort();
  });
}
