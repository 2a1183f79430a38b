/**
 * Issue 13: greedy decoding tokens/s of the bundled world model in Chromium (onnxruntime-web in
 * the Models page's decoding Web Worker, wasm) against Node (onnxruntime-node), the same decoder,
 * model file and prompt, in the same run. Prints both and the ratio browser / Node (goal ≥ 0.5).
 *
 *   cd /work/main && pnpm build && npx tsx benchmarks/browser-decode.ts [--tokens 128] [--runs 3] [--webgpu] [--fp32]
 *
 * The page's figure is its own: Models page playground, "in this browser", wasm (or WebGPU with
 * --webgpu, a SwiftShader CPU adapter here), the int8 weights by default as the page loads them
 * (`--fp32` picks fp32 on the page), timed in the worker around `decoder.generate` (prompt prefill
 * included), read from `window.terrariumLastDecode`. Node then decodes the page's own prompt with
 * the same ONNX file and times the same call. Best of N each, after one warm-up. The decode stops
 * at EOS in both, so both decode the same tokens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from '@terrarium/inference/node';
import { serveDataDir } from './viewer/serve-cli';

const args = process.argv.slice(2);
function numberArg(name: string, fallback: number): number {
  const position = args.indexOf(name);
  const value = position === -1 ? Number.NaN : Number(args[position + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
const TOKENS = numberArg('--tokens', 128);
const RUNS = numberArg('--runs', 3);
const WEBGPU = args.includes('--webgpu');
const FP32 = args.includes('--fp32');
const progress = (text: string) => process.stderr.write(`… ${text}\n`);

interface PageDecode {
  executionProvider: string;
  variant: string;
  wasmThreads: number;
  prompt: string;
  tokens: number[];
  tokensPerSecond: number;
}

function isPageDecode(value: unknown): value is PageDecode {
  if (typeof value !== 'object' || value === null) return false;
  return (
    typeof Reflect.get(value, 'executionProvider') === 'string' &&
    typeof Reflect.get(value, 'variant') === 'string' &&
    typeof Reflect.get(value, 'wasmThreads') === 'number' &&
    typeof Reflect.get(value, 'prompt') === 'string' &&
    Array.isArray(Reflect.get(value, 'tokens')) &&
    typeof Reflect.get(value, 'tokensPerSecond') === 'number'
  );
}

async function nodeTokensPerSecond(
  prompt: string,
  variant: string,
): Promise<{ best: number; tokens: number[] }> {
  const { decoder, session } = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER, {
    file: variant === 'int8' ? 'model_quantized.onnx' : 'model.onnx',
  });
  try {
    await decoder.generate(prompt, { maxTokens: 8 });
    let best = 0;
    let tokens: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const result = await decoder.generate(prompt, { maxTokens: TOKENS });
      best = Math.max(best, result.tokens.length / ((performance.now() - started) / 1000));
      tokens = result.tokens;
    }
    return { best, tokens };
  } finally {
    await session.release();
  }
}

async function browserTokensPerSecond(url: string): Promise<{
  best: number;
  tokens: number[];
  provider: string;
  variant: string;
  threads: number;
  prompt: string;
}> {
  const profile = mkdtempSync(join(tmpdir(), 'terrarium-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(WEBGPU ? ['--enable-unsafe-webgpu'] : []),
    ],
  });
  try {
    const page = await context.newPage();
    await page.goto(`${url}/models`);
    const playground = page.getByTestId('playground');
    await playground
      .getByTestId('execution-provider-choice')
      .selectOption(WEBGPU ? 'auto' : 'wasm');
    await playground.getByTestId('max-tokens').fill(String(TOKENS));
    await playground.getByTestId('model-variant-choice').selectOption(FP32 ? 'fp32' : 'int8');
    // The bench's store is empty: the prompt is the example action alone.
    await playground.getByTestId('neighbor-dataset').selectOption('');
    let best = 0;
    let tokens: number[] = [];
    let provider = '';
    let variant = '';
    let threads = 0;
    let prompt = '';
    // The first click also loads the model and the wasm: it is the warm-up.
    for (let run = 0; run <= RUNS; run++) {
      await page.evaluate(() => Reflect.deleteProperty(window, 'terrariumLastDecode'));
      await playground.getByRole('button', { name: 'Predict' }).click();
      await page.waitForFunction(
        () => Reflect.get(window, 'terrariumLastDecode') !== undefined,
        null,
        {
          timeout: 120_000,
        },
      );
      const decode: unknown = await page.evaluate(() => Reflect.get(window, 'terrariumLastDecode'));
      if (!isPageDecode(decode)) throw new Error('the page exposed no decode');
      provider = decode.executionProvider;
      variant = decode.variant;
      threads = decode.wasmThreads;
      prompt = decode.prompt;
      tokens = decode.tokens;
      if (run > 0) best = Math.max(best, decode.tokensPerSecond);
      progress(`browser run ${run}: ${decode.tokensPerSecond.toFixed(0)} tok/s on ${provider}`);
    }
    return { best, tokens, provider, variant, threads, prompt };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'terrarium-bench-decode-'));
const server = await serveDataDir(dataDir);
try {
  progress(`server at ${server.url}`);
  const browser = await browserTokensPerSecond(server.url);
  const prompt = browser.prompt;
  const node = await nodeTokensPerSecond(prompt, browser.variant);
  progress(`node: ${node.best.toFixed(0)} tok/s`);
  const same = JSON.stringify(browser.tokens) === JSON.stringify(node.tokens);
  console.log(
    JSON.stringify(
      {
        bench: 'browser-decode',
        prompt_bytes: new TextEncoder().encode(prompt).length,
        max_tokens: TOKENS,
        decoded_tokens: node.tokens.length,
        same_tokens: same,
        node_tokens_per_s: Math.round(node.best),
        weights: browser.variant,
        browser_provider: browser.provider,
        browser_wasm_threads: browser.threads,
        browser_decodes_in: 'a Web Worker',
        browser_tokens_per_s: Math.round(browser.best),
        ratio_browser_over_node: Number((browser.best / node.best).toFixed(3)),
        machine: { cpus: cpus().length, load1: Number((loadavg()[0] ?? 0).toFixed(2)) },
      },
      null,
      2,
    ),
  );
  if (!same) process.exitCode = 1;
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
