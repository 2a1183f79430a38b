import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Action } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from '../node';
import { createDecodeClient, type DecodeClient } from './decode-client';
import { endpointOf, promptInputMessage, WorkerReply } from './decode-protocol';
import { serveDecoding } from './decode-service';

/**
 * The decoding worker's protocol end to end, in Node: the service (what the Web Worker runs) and
 * the client (what the page runs) on the two ports of a real MessageChannel (structured clone and
 * all), onnxruntime-web's wasm build decoding the bundled model fetched over real HTTP.
 */

/** A tool call as the bundled model's prompts lay one out (markers are special tokens). */
const ACTION: Action = {
  type: 'tool_call',
  name: 'find_user_id_by_name_zip',
  arguments: { first_name: 'Yusuf', last_name: 'Rossi', zip: '19122' },
  callId: null,
};
const PROMPT = `@tool\n<|A|>${JSON.stringify({ name: ACTION.name, arguments: ACTION.arguments })}<|O|>`;
const HAS_INT8 = existsSync(join(BUNDLED_MODEL_FOLDER, 'onnx', 'model_quantized.onnx'));

let server: Server;
let origin: string;
let fp32Only: string;
let client: DecodeClient;
let port: MessagePort;

beforeAll(async () => {
  // The bundled folder with its fp32 file only, as a user's own export would be.
  fp32Only = await mkdtemp(join(tmpdir(), 'terrarium-fp32-only-'));
  await mkdir(join(fp32Only, 'onnx'));
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    await copyFile(join(BUNDLED_MODEL_FOLDER, file), join(fp32Only, file));
  }
  await copyFile(
    join(BUNDLED_MODEL_FOLDER, 'onnx', 'model.onnx'),
    join(fp32Only, 'onnx', 'model.onnx'),
  );
  const folders = new Map([
    ['bundled', BUNDLED_MODEL_FOLDER],
    ['fp32-only', fp32Only],
  ]);
  server = createServer((request, response) => {
    const [, folder = '', ...rest] = (request.url ?? '').split('/');
    const root = folders.get(folder);
    const file = rest.join('/');
    if (root === undefined || file.includes('..')) {
      response.writeHead(404).end();
      return;
    }
    readFile(join(root, file)).then(
      (bytes) => response.writeHead(200).end(bytes),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  origin = `http://127.0.0.1:${address.port}`;
  const channel = new MessageChannel();
  channel.port1.start();
  channel.port2.start();
  port = channel.port1;
  serveDecoding(endpointOf(channel.port2));
  client = createDecodeClient(endpointOf(channel.port1));
});

afterAll(async () => {
  port.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(fp32Only, { recursive: true, force: true });
});

async function nodeDecode(file: string, maxTokens: number) {
  const { decoder, session } = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER, { file });
  try {
    return await decoder.generate(PROMPT, { maxTokens });
  } finally {
    await session.release();
  }
}

describe('the decoding worker', () => {
  it('loads the int8 file when the folder has one and streams Node’s greedy tokens', async () => {
    const model = await client.load({
      source: { kind: 'url', base: `${origin}/bundled/` },
      variant: 'int8',
      executionProvider: 'wasm',
      wasmThreads: 1,
    });
    expect(model.loaded).toMatchObject({
      executionProvider: 'wasm',
      fallbackReason: null,
      variant: HAS_INT8 ? 'int8' : 'fp32',
      modelFile: HAS_INT8 ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx',
      variantNote: HAS_INT8
        ? null
        : 'this folder has no onnx/model_quantized.onnx: the fp32 model ran instead',
    });
    const pieces: string[] = [];
    const result = await model.generate(PROMPT, {
      maxTokens: 40,
      onToken: (text) => pieces.push(text),
    });
    const reference = await nodeDecode(HAS_INT8 ? 'model_quantized.onnx' : 'model.onnx', 40);
    expect(result.tokens).toEqual(reference.tokens);
    expect(result.text).toBe(reference.text);
    expect(pieces.join('')).toBe(reference.text);
    expect(pieces.length).toBeGreaterThan(1);
    expect(result.prompt).toBe(PROMPT);
    // Given the input instead of text, the worker builds the same prompt with the model's tokenizer.
    const built = await model.generate(
      promptInputMessage({ domain: 'tool', history: [], action: ACTION, neighbors: [] }),
      { maxTokens: 40 },
    );
    expect(built.prompt).toBe(PROMPT);
    expect(built.tokens).toEqual(reference.tokens);
  }, 60_000);

  it('runs fp32 when asked, and says so when a folder has no int8 file', async () => {
    const fp32 = await client.load({
      source: { kind: 'url', base: `${origin}/bundled/` },
      variant: 'fp32',
      executionProvider: 'wasm',
      wasmThreads: 1,
    });
    expect(fp32.loaded).toMatchObject({
      variant: 'fp32',
      modelFile: 'onnx/model.onnx',
      variantNote: null,
    });
    const reference = await nodeDecode('model.onnx', 24);
    expect((await fp32.generate(PROMPT, { maxTokens: 24 })).tokens).toEqual(reference.tokens);

    const fallback = await client.load({
      source: { kind: 'url', base: `${origin}/fp32-only/` },
      variant: 'int8',
      executionProvider: 'wasm',
      wasmThreads: 1,
    });
    expect(fallback.loaded).toMatchObject({
      variant: 'fp32',
      modelFile: 'onnx/model.onnx',
      variantNote: 'this folder has no onnx/model_quantized.onnx: the fp32 model ran instead',
    });
  }, 60_000);

  it('says why a requested WebGPU run fell back to wasm', async () => {
    const model = await client.load({
      source: { kind: 'url', base: `${origin}/bundled/` },
      variant: 'fp32',
      executionProvider: 'webgpu',
      wasmThreads: 1,
    });
    // Node has no navigator.gpu, as a browser without WebGPU.
    expect(model.loaded.executionProvider).toBe('wasm');
    expect(model.loaded.fallbackReason).toBe('this browser exposes no WebGPU API (navigator.gpu)');
  }, 60_000);

  it('stops a decode between two tokens when its signal aborts, and decodes again after', async () => {
    const model = await client.load({
      source: { kind: 'url', base: `${origin}/bundled/` },
      variant: 'fp32',
      executionProvider: 'wasm',
      wasmThreads: 1,
    });
    const controller = new AbortController();
    const pieces: string[] = [];
    const decode = model.generate(PROMPT, {
      maxTokens: 400,
      signal: controller.signal,
      onToken: (text) => {
        pieces.push(text);
        if (pieces.length === 3) controller.abort();
      },
    });
    await expect(decode).rejects.toMatchObject({ name: 'AbortError' });
    // Aborted within a few tokens of the request, long before the 400-token budget.
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.length).toBeLessThan(12);
    const reference = await nodeDecode('model.onnx', 8);
    expect((await model.generate(PROMPT, { maxTokens: 8 })).tokens).toEqual(reference.tokens);
  }, 60_000);

  it('answers a failed load and a malformed request with a `failed` reply', async () => {
    await expect(
      client.load({
        source: { kind: 'url', base: `${origin}/missing/` },
        variant: 'int8',
        executionProvider: 'wasm',
        wasmThreads: 1,
      }),
    ).rejects.toThrow(`GET ${origin}/missing/config.json: 404 (no model folder there)`);
    const channel = new MessageChannel();
    channel.port1.start();
    channel.port2.start();
    serveDecoding(endpointOf(channel.port2));
    const reply = new Promise<unknown>((resolve) =>
      channel.port1.addEventListener('message', (event) => resolve(event.data), { once: true }),
    );
    endpointOf(channel.port1).send({ type: 'generate', id: 7, model: 'x' });
    const parsed = WorkerReply.parse(await reply);
    expect(parsed).toMatchObject({ type: 'failed', id: 7, aborted: false });
    expect(parsed.type === 'failed' && parsed.message).toMatch(
      /^the decoding worker got a malformed request: /,
    );
    channel.port1.close();
  });
});
