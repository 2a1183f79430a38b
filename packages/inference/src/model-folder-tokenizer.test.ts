import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { predictionInputs } from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decoder } from './decoder';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from './node';
import { renderPrompt } from './prompt';
import { heldOutTau2Trajectory } from './testing/held-out';
import { byteTokenizer } from './tokenizer';
import { loadOnnxModelWeb } from './web';

/** The bundled folder as a user's export would be: the same files, no `terrarium.tokenizer`. */
let withoutHint: string;
let withoutHintConfig: unknown;
let bytes: Decoder;
let fromTokenizerJson: Decoder;
const prompts: string[] = [];

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'));
}

beforeAll(async () => {
  withoutHint = await mkdtemp(join(tmpdir(), 'terrarium-model-'));
  await mkdir(join(withoutHint, 'onnx'));
  for (const file of ['tokenizer.json', 'tokenizer_config.json', join('onnx', 'model.onnx')]) {
    await copyFile(join(BUNDLED_MODEL_FOLDER, file), join(withoutHint, file));
  }
  const config = await readJson(join(BUNDLED_MODEL_FOLDER, 'config.json'));
  if (typeof config !== 'object' || config === null) throw new Error('config.json is no object');
  const { terrarium, ...rest } = { terrarium: null, ...config };
  if (terrarium === null) throw new Error('the bundled config.json has no "terrarium" hint');
  withoutHintConfig = rest;
  await writeFile(join(withoutHint, 'config.json'), JSON.stringify(rest));

  bytes = (await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER)).decoder;
  fromTokenizerJson = (await loadOnnxModelFolder(withoutHint)).decoder;

  const { trajectory } = await heldOutTau2Trajectory();
  const input = [...predictionInputs(trajectory)][2];
  if (input === undefined) throw new Error('the held-out trajectory has fewer than 3 transitions');
  prompts.push(
    renderPrompt(trajectory.domain, input.history, input.action),
    renderPrompt('tool', input.history, {
      type: 'tool_call',
      name: 'find_user_id_by_name_zip',
      arguments: { first_name: 'Zoé', last_name: '日本', note: 'café 😀' },
      callId: null,
    }),
  );
});

afterAll(async () => {
  await rm(withoutHint, { recursive: true, force: true });
});

describe('a model folder without the byte hint (its own tokenizer.json)', () => {
  it('loads the tokenizer.json one', () => {
    expect(bytes.tokenizer).toBe(byteTokenizer);
    expect(fromTokenizerJson.tokenizer.kind).toBe('tokenizer.json');
  });

  it('decodes the same greedy tokens and text as the byte path, multi-byte prompts included', async () => {
    expect(prompts[1]).toMatch(/Zoé.*日本.*café 😀/);
    for (const prompt of prompts) {
      const pieces: string[] = [];
      const viaJson = await fromTokenizerJson.generate(prompt, {
        maxTokens: 48,
        onToken: (piece) => pieces.push(piece),
      });
      const viaBytes = await bytes.generate(prompt, { maxTokens: 48 });
      expect(viaJson.promptTokens).toBe(new TextEncoder().encode(prompt).length);
      expect(viaJson.tokens.length).toBeGreaterThan(0);
      expect(viaJson.tokens).toEqual(viaBytes.tokens);
      expect(viaJson.text).toBe(viaBytes.text);
      expect(viaJson.finishReason).toBe(viaBytes.finishReason);
      expect(pieces.join('')).toBe(viaJson.text);
    }
  });

  it('samples the same tokens as the byte path for a seed', async () => {
    const options = { maxTokens: 24, temperature: 1, topK: 20, seed: 3 };
    const viaJson = await fromTokenizerJson.generate(prompts[0] ?? '', options);
    const viaBytes = await bytes.generate(prompts[0] ?? '', options);
    expect(viaJson.tokens).toEqual(viaBytes.tokens);
    expect(viaJson.tokens.every((token) => token < 256)).toBe(true);
  });

  it('refuses a folder with neither the hint nor tokenizer.json, naming the file', async () => {
    const bare = await mkdtemp(join(tmpdir(), 'terrarium-model-'));
    try {
      await writeFile(join(bare, 'config.json'), JSON.stringify(withoutHintConfig));
      await expect(loadOnnxModelFolder(bare)).rejects.toThrow(
        `${join(bare, 'tokenizer.json')} does not exist, and config.json does not declare "terrarium": {"tokenizer": "bytes"}`,
      );
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });

  it('runs with onnxruntime-web (wasm) from the tokenizer JSON the caller passes', async () => {
    const model = await readFile(join(withoutHint, 'onnx', 'model.onnx'));
    const web = await loadOnnxModelWeb({
      config: withoutHintConfig,
      tokenizerJson: await readJson(join(withoutHint, 'tokenizer.json')),
      tokenizerConfig: await readJson(join(withoutHint, 'tokenizer_config.json')),
      model,
      executionProvider: 'wasm',
      wasmThreads: 1,
    });
    expect(web.tokenizer.kind).toBe('tokenizer.json');
    const prompt = prompts[1] ?? '';
    const fromWeb = await web.decoder.generate(prompt, { maxTokens: 32 });
    const fromNode = await bytes.generate(prompt, { maxTokens: 32 });
    expect(fromWeb.tokens).toEqual(fromNode.tokens);
    expect(fromWeb.text).toBe(fromNode.text);
    await expect(
      loadOnnxModelWeb({ config: withoutHintConfig, model, executionProvider: 'wasm' }),
    ).rejects.toThrow('the model folder has no tokenizer.json');
    // Instantiating onnxruntime-web's wasm takes seconds on a loaded 2-core machine.
  }, 30_000);
});
