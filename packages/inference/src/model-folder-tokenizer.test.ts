import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decoder } from './decoder';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from './node';
import { loadOnnxModelWeb } from './web';

/** The ids the Python `tokenizers` library (which trained the tokenizer) gives these texts. */
const TokenizerCheck = z.array(z.object({ text: z.string(), ids: z.array(z.number().int()) }));

let decoder: Decoder;
let check: z.infer<typeof TokenizerCheck>;

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'));
}

/** A multi-byte prompt in the model's own format (markers as special tokens). */
const MULTI_BYTE_PROMPT =
  '@tool\n<|A|>{"name":"find_user_id_by_name_zip","arguments":{"first_name":"Zoé","last_name":"日本","note":"café 😀"}}<|O|>';

beforeAll(async () => {
  decoder = (await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER)).decoder;
  check = TokenizerCheck.parse(await readJson(join(BUNDLED_MODEL_FOLDER, 'tokenizer-check.json')));
});

describe("the bundled model's tokenizer.json (byte-level BPE)", () => {
  it('encodes as the Python library that trained it does, markers and multi-byte text included', () => {
    expect(decoder.tokenizer.kind).toBe('tokenizer.json');
    expect(check.length).toBeGreaterThanOrEqual(5);
    for (const { text, ids } of check) {
      expect(decoder.tokenizer.encode(text)).toEqual(ids);
      expect(decoder.tokenizer.describe(ids)).toBe(text);
    }
  });

  it('streams exactly the text it returns for a multi-byte prompt', async () => {
    const pieces: string[] = [];
    const result = await decoder.generate(MULTI_BYTE_PROMPT, {
      maxTokens: 48,
      onToken: (piece) => pieces.push(piece),
    });
    expect(result.promptTokens).toBe(decoder.tokenizer.encode(MULTI_BYTE_PROMPT).length);
    expect(result.tokens.length).toBeGreaterThan(0);
    expect(pieces.join('')).toBe(result.text);
    // Markers and padding are never generated.
    expect(result.tokens.every((token) => decoder.tokenizer.isGenerable(token))).toBe(true);
  });
});

describe('a model folder read by onnxruntime-web', () => {
  let bare: string;
  let config: unknown;

  beforeAll(async () => {
    bare = await mkdtemp(join(tmpdir(), 'terrarium-model-'));
    await mkdir(join(bare, 'onnx'));
    config = await readJson(join(BUNDLED_MODEL_FOLDER, 'config.json'));
    await writeFile(join(bare, 'config.json'), JSON.stringify(config));
    await copyFile(
      join(BUNDLED_MODEL_FOLDER, 'onnx', 'model.onnx'),
      join(bare, 'onnx', 'model.onnx'),
    );
  });

  afterAll(async () => {
    await rm(bare, { recursive: true, force: true });
  });

  it('refuses a folder without tokenizer.json, naming the file', async () => {
    await expect(loadOnnxModelFolder(bare)).rejects.toThrow(
      `${join(bare, 'tokenizer.json')} does not exist, and config.json does not declare "terrarium": {"tokenizer": "bytes"}`,
    );
  });

  it('decodes as onnxruntime-node does from the tokenizer JSON the caller passes', async () => {
    const model = await readFile(join(bare, 'onnx', 'model.onnx'));
    const web = await loadOnnxModelWeb({
      config,
      tokenizerJson: await readJson(join(BUNDLED_MODEL_FOLDER, 'tokenizer.json')),
      tokenizerConfig: await readJson(join(BUNDLED_MODEL_FOLDER, 'tokenizer_config.json')),
      model,
      executionProvider: 'wasm',
      wasmThreads: 1,
    });
    expect(web.tokenizer.kind).toBe('tokenizer.json');
    const fromWeb = await web.decoder.generate(MULTI_BYTE_PROMPT, { maxTokens: 32 });
    const fromNode = await decoder.generate(MULTI_BYTE_PROMPT, { maxTokens: 32 });
    expect(fromWeb.tokens).toEqual(fromNode.tokens);
    expect(fromWeb.text).toBe(fromNode.text);
    await expect(loadOnnxModelWeb({ config, model, executionProvider: 'wasm' })).rejects.toThrow(
      'the model folder has no tokenizer.json',
    );
    // Instantiating onnxruntime-web's wasm takes seconds on a loaded 2-core machine.
  }, 30_000);
});
