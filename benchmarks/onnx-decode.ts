/**
 * Benchmark of issue 3, section 6 (b): greedy decoding tokens/s of the bundled world model
 * (models/terrarium-wm-tiny) with Terrarium's decoder, in Node:
 *   node-kv      onnxruntime-node, KV cache (only the new token is fed after the prompt)
 *   node-full    onnxruntime-node, no cache (the whole sequence recomputed at every step)
 *   web-wasm-kv  onnxruntime-web's wasm backend running in Node, KV cache, 1 thread
 *   …-present    the same, the model handing back the whole cache at every run (`present`, the
 *                decoder before it kept the cache itself; what a folder without
 *                `new_key_values` outputs still gets)
 * 200 tokens from a real prompt (a held-out tau2 retail step); EOS is ignored so every run decodes
 * exactly 200 tokens. One warm-up decode each, then the best of 3. The comparison with
 * `@huggingface/transformers` is decode-vs-transformers.ts.
 *
 *   cd /work/main && npx tsx benchmarks/onnx-decode.ts
 */
import { loadavg } from 'node:os';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder, nodeTensor } from '@terrarium/inference/node';
import { loadWebModelFolder } from '@terrarium/inference/node/web';
import { webTensor } from '@terrarium/inference/web';
import {
  createDecoder,
  type Decoder,
  type InferenceSessionLike,
  type ModelConfig,
  type TensorFactory,
  type TextTokenizer,
  withWholeCache,
} from '@terrarium/inference';
import { heldOutBenchPrompt } from '@terrarium/inference/testing';

const TOKENS = 200;
const RUNS = 3;

/** Same model without an EOS, so that each run decodes exactly TOKENS tokens. */
function withoutEos(config: ModelConfig): ModelConfig {
  return { ...config, eosTokenIds: [] };
}

async function tokensPerSecond(
  decoder: Decoder,
  prompt: readonly number[],
  useCache: boolean,
): Promise<number> {
  await decoder.generate(prompt, { maxTokens: 8, useCache });
  let best = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = await decoder.generate(prompt, { maxTokens: TOKENS, useCache });
    const seconds = (performance.now() - started) / 1000;
    if (result.tokens.length !== TOKENS) throw new Error(`decoded ${result.tokens.length} tokens`);
    best = Math.max(best, TOKENS / seconds);
  }
  return best;
}

/** A decoder of `session`; `cache: 'present'` hides the model's own-entry outputs from it. */
function decoderOf(
  loaded: { session: InferenceSessionLike; config: ModelConfig; tokenizer: TextTokenizer },
  tensor: TensorFactory,
  cache: 'held' | 'present',
): Decoder {
  const { session } = loaded;
  return createDecoder({
    session: cache === 'held' ? session : withWholeCache(session),
    config: withoutEos(loaded.config),
    tensor,
    tokenizer: loaded.tokenizer,
  });
}

const node = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER);
const { ids: prompt } = await heldOutBenchPrompt(node.tokenizer);
const nodeDecoder = decoderOf(node, nodeTensor, 'held');
const web = await loadWebModelFolder(BUNDLED_MODEL_FOLDER);
const webDecoder = decoderOf(web, webTensor, 'held');

const results = {
  promptTokens: prompt.length,
  tokens: TOKENS,
  'node-kv': await tokensPerSecond(nodeDecoder, prompt, true),
  'node-full': await tokensPerSecond(nodeDecoder, prompt, false),
  'web-wasm-kv': await tokensPerSecond(webDecoder, prompt, true),
  'node-kv-present': await tokensPerSecond(decoderOf(node, nodeTensor, 'present'), prompt, true),
  'web-wasm-kv-present': await tokensPerSecond(decoderOf(web, webTensor, 'present'), prompt, true),
  loadAverage: loadavg()[0],
};
const round = (value: number): number => Math.round(value);
console.log(
  JSON.stringify(
    {
      ...results,
      'node-kv': round(results['node-kv']),
      'node-full': round(results['node-full']),
      'web-wasm-kv': round(results['web-wasm-kv']),
      'node-kv-present': round(results['node-kv-present']),
      'web-wasm-kv-present': round(results['web-wasm-kv-present']),
      heldOverPresent: {
        node: Number((results['node-kv'] / results['node-kv-present']).toFixed(2)),
        webWasm: Number((results['web-wasm-kv'] / results['web-wasm-kv-present']).toFixed(2)),
      },
      kvSpeedup: Number((results['node-kv'] / results['node-full']).toFixed(2)),
      webOverNode: Number((results['web-wasm-kv'] / results['node-kv']).toFixed(2)),
    },
    null,
    1,
  ),
);
