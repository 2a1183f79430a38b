/**
 * Benchmark of issue 3, section 6 (b): greedy decoding tokens/s of the bundled world model
 * (models/terrarium-wm-tiny), Terrarium's decoder (packages/inference, onnxruntime-node, KV cache)
 * against `@huggingface/transformers` `generate()` on the same model folder, the same prompt token
 * ids and the same greedy setting, both in this Node process on onnxruntime-node 1.30 (CPU).
 *
 * EOS is suppressed on both sides so each decode is exactly TOKENS tokens (ours: a config without
 * EOS; transformers.js: `min_new_tokens`), and special tokens (padding, the prompt's markers) are
 * never generated on either (ours never emits specials; transformers.js: `bad_words_ids`). One warm-up each, then RUNS
 * alternating runs; best and median of each. Prints whether the greedy tokens agree, tokens/s of each, the ratio.
 *
 *   cd bench && node --import tsx decode-vs-transformers.ts [--tokens 200] [--runs 3]
 */
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { AutoModelForCausalLM, env, Tensor } from '@huggingface/transformers';
import { createDecoder, type ModelConfig } from '@terrarium/inference';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder, nodeTensor } from '@terrarium/inference/node';
import { heldOutBenchPrompt } from '@terrarium/inference/testing';

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  const value = at === -1 ? Number.NaN : Number(args[at + 1]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
const TOKENS = option('tokens', 200);
const RUNS = option('runs', 5);

// Offline: the model folder on disk, nothing fetched.
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = `${dirname(BUNDLED_MODEL_FOLDER)}/`;
const MODEL_NAME = BUNDLED_MODEL_FOLDER.slice(dirname(BUNDLED_MODEL_FOLDER).length + 1);

function withoutEos(config: ModelConfig): ModelConfig {
  return { ...config, eosTokenIds: [] };
}

const node = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER);
const { ids: promptIds } = await heldOutBenchPrompt(node.tokenizer);
if (promptIds.length + TOKENS > node.config.contextLength) {
  throw new Error(
    `${promptIds.length} prompt + ${TOKENS} new tokens exceed the context (${node.config.contextLength})`,
  );
}
const ours = createDecoder({
  session: node.session,
  config: withoutEos(node.config),
  tensor: nodeTensor,
  tokenizer: node.tokenizer,
});
/** Ids neither side may generate: the tokenizer's specials (padding, the prompt's markers). */
const banned = Array.from({ length: node.config.vocabSize }, (_, id) => id).filter(
  (id) => !node.tokenizer.isGenerable(id) && !node.config.eosTokenIds.includes(id),
);

const model = await AutoModelForCausalLM.from_pretrained(MODEL_NAME, {
  dtype: 'fp32',
  device: 'cpu',
  local_files_only: true,
});
const inputIds = new Tensor('int64', BigInt64Array.from(promptIds, BigInt), [1, promptIds.length]);
const attentionMask = new Tensor('int64', new BigInt64Array(promptIds.length).fill(1n), [
  1,
  promptIds.length,
]);

async function oursDecode(): Promise<number[]> {
  const result = await ours.generate(promptIds, { maxTokens: TOKENS });
  return result.tokens;
}

function isTensor(value: unknown): value is Tensor {
  return value instanceof Tensor;
}

async function transformersDecode(): Promise<number[]> {
  const output = await model.generate({
    inputs: inputIds,
    attention_mask: attentionMask,
    max_new_tokens: TOKENS,
    min_new_tokens: TOKENS,
    do_sample: false,
    bad_words_ids: banned.map((id) => [id]),
  });
  if (!isTensor(output)) throw new Error('generate() returned no tensor');
  const data = output.data;
  if (!(data instanceof BigInt64Array)) throw new Error('generate() returned no int64 ids');
  return Array.from(data.subarray(promptIds.length), Number);
}

function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

interface Timing {
  tokensPerSecond: number;
  /** CPU time of the whole process (all threads) per token: less at the mercy of other load. */
  cpuMicrosPerToken: number;
}

async function timed(decode: () => Promise<number[]>): Promise<Timing> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const tokens = await decode();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (tokens.length !== TOKENS) throw new Error(`decoded ${tokens.length} tokens, not ${TOKENS}`);
  return { tokensPerSecond: TOKENS / seconds, cpuMicrosPerToken: (cpu.user + cpu.system) / TOKENS };
}

const oursTokens = await oursDecode();
const theirTokens = await transformersDecode();
let firstDifference = -1;
for (let at = 0; at < TOKENS; at++) {
  if (oursTokens[at] !== theirTokens[at]) {
    firstDifference = at;
    break;
  }
}

// Alternating runs, so that a burst of load from elsewhere on the machine hits both alike.
const oursTimings: Timing[] = [];
const theirTimings: Timing[] = [];
for (let run = 0; run < RUNS; run++) {
  oursTimings.push(await timed(oursDecode));
  theirTimings.push(await timed(transformersDecode));
}
const oursRates = oursTimings.map((timing) => timing.tokensPerSecond);
const theirRates = theirTimings.map((timing) => timing.tokensPerSecond);
const oursCpu = median(oursTimings.map((timing) => timing.cpuMicrosPerToken));
const theirCpu = median(theirTimings.map((timing) => timing.cpuMicrosPerToken));
await model.dispose();

const bestOurs = Math.max(...oursRates);
const bestTheirs = Math.max(...theirRates);

console.log(
  JSON.stringify(
    {
      promptTokens: promptIds.length,
      newTokens: TOKENS,
      runs: RUNS,
      sameGreedyTokens: firstDifference === -1,
      ...(firstDifference === -1 ? {} : { firstDifferenceAt: firstDifference }),
      oursTokensPerSecond: { best: Math.round(bestOurs), median: Math.round(median(oursRates)) },
      transformersTokensPerSecond: {
        best: Math.round(bestTheirs),
        median: Math.round(median(theirRates)),
      },
      ratioOfBest: Number((bestOurs / bestTheirs).toFixed(2)),
      ratioOfMedians: Number((median(oursRates) / median(theirRates)).toFixed(2)),
      cpuMicrosPerToken: { ours: Math.round(oursCpu), transformers: Math.round(theirCpu) },
      ratioOfCpuPerToken: Number((theirCpu / oursCpu).toFixed(2)),
      goal: '>= 1.5',
      loadAverage: Number(loadavg()[0]?.toFixed(2)),
    },
    null,
    1,
  ),
);
