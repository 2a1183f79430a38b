/**
 * Issue 13: greedy decoding tokens/s of the bundled world model in Chromium (onnxruntime-web in
 * the Models page's decoding Web Worker, wasm) against Node (onnxruntime-node), the same decoder,
 * model file and prompt, in the same run. Prints both and the ratio browser / Node (goal ≥ 0.5).
 *
 *   cd /work/main && pnpm build && npx tsx benchmarks/browser-decode.ts [--tokens 128] [--runs 16] [--webgpu] [--fp32] [--int8] [--no-neighbors]
 *
 * The page's figure is its own: Models page playground on the demo data, its default example with
 * the recorded neighbors the page finds for it (`--no-neighbors`: the action alone), "in this
 * browser", wasm (or WebGPU with --webgpu, a SwiftShader CPU adapter here), the weights the page
 * loads by default (`--fp32`, `--int8` pick one), timed in the worker around `decoder.generate`
 * (prompt prefill included), read from `window.terrariumLastDecode`. Node decodes the page's own
 * prompt with the same ONNX file, grammar and decoder and times the same call, in turns with the
 * page (`pairedRates`): the figure to compare is the median of those pairs' ratios over the last
 * half of the N runs (the page's first decodes run 2-5x slower until V8 has compiled the hot wasm
 * functions with its optimizing tier). Best of N and medians of each side are printed too. Then,
 * as diagnostics, Node with lookahead off (one token per model run) and onnxruntime-web's wasm
 * build in Node. The decode stops at EOS in all, so all decode the same tokens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from '@terrarium/inference/node';
import { loadWebModelFolder } from '@terrarium/inference/node/web';
import { serveDataDir, type CliServer } from './viewer/serve-cli';

const args = process.argv.slice(2);
function numberArg(name: string, fallback: number): number {
  const position = args.indexOf(name);
  const value = position === -1 ? Number.NaN : Number(args[position + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
const TOKENS = numberArg('--tokens', 128);
const RUNS = numberArg('--runs', 16);
const WEBGPU = args.includes('--webgpu');
const VARIANT = args.includes('--fp32') ? 'fp32' : args.includes('--int8') ? 'int8' : null;
const NEIGHBORS = !args.includes('--no-neighbors');
const progress = (text: string) => process.stderr.write(`… ${text}\n`);

interface PageDecode {
  executionProvider: string;
  variant: string;
  wasmThreads: number;
  prompt: string;
  tokens: number[];
  grammar: 'json' | null;
  promptTokens: number;
  tokensPerSecond: number;
}

function isPageDecode(value: unknown): value is PageDecode {
  if (typeof value !== 'object' || value === null) return false;
  return (
    typeof Reflect.get(value, 'executionProvider') === 'string' &&
    typeof Reflect.get(value, 'variant') === 'string' &&
    typeof Reflect.get(value, 'wasmThreads') === 'number' &&
    typeof Reflect.get(value, 'prompt') === 'string' &&
    (Reflect.get(value, 'grammar') === 'json' || Reflect.get(value, 'grammar') === null) &&
    typeof Reflect.get(value, 'promptTokens') === 'number' &&
    Array.isArray(Reflect.get(value, 'tokens')) &&
    typeof Reflect.get(value, 'tokensPerSecond') === 'number'
  );
}

type NodeRuntime = 'native' | 'native, one thread' | 'wasm';

/**
 * The bundled model's file the page ran, loaded with onnxruntime-node (as the server runs it, or on
 * one intra-op thread as the page runs one wasm thread) or with onnxruntime-web's wasm.
 */
async function nodeModel(decode: PageDecode, runtime: NodeRuntime) {
  const file = decode.variant === 'int8' ? 'model_quantized.onnx' : 'model.onnx';
  if (runtime === 'wasm') return loadWebModelFolder(BUNDLED_MODEL_FOLDER, { file });
  return loadOnnxModelFolder(BUNDLED_MODEL_FOLDER, {
    file,
    ...(runtime === 'native' ? {} : { intraOpThreads: 1 }),
  });
}

interface Decodes {
  /** One timed greedy decode of the page's prompt: tokens/s and the tokens. */
  decode(): Promise<{ rate: number; tokens: number[] }>;
  close(): Promise<void>;
}

/** The page's prompt decoded in this process with the same file, grammar and decoder. */
async function nodeDecodes(
  page: PageDecode,
  lookahead: number | undefined,
  runtime: NodeRuntime = 'native',
): Promise<Decodes> {
  const { decoder, session } = await nodeModel(page, runtime);
  // The page's grammar: JSON when the best neighbor answered JSON, else JSON once the output opens
  // an object or array (the default example is a tool call). A decode held to JSON from its first
  // token is the same under both.
  const options = {
    maxTokens: TOKENS,
    grammar: page.grammar === 'json' ? ('json' as const) : ('json-if-opened' as const),
    ...(lookahead === undefined ? {} : { lookahead }),
  };
  await decoder.generate(page.prompt, { ...options, maxTokens: 8 });
  return {
    async decode() {
      const started = performance.now();
      const result = await decoder.generate(page.prompt, options);
      return {
        rate: result.tokens.length / ((performance.now() - started) / 1000),
        tokens: result.tokens,
      };
    },
    close: () => session.release(),
  };
}

interface Rates {
  best: number;
  /** The median of the last half of the runs. */
  median: number;
}

/** The median of the last half of `values` (the first half is V8 tiering the wasm up). */
function lastHalfMedian(values: readonly number[]): number {
  const last = values.slice(Math.floor(values.length / 2)).toSorted((a, b) => a - b);
  const middle = last.length / 2;
  return last.length % 2 === 1
    ? (last[Math.floor(middle)] ?? 0)
    : ((last[middle - 1] ?? 0) + (last[middle] ?? 0)) / 2;
}

function ratesOf(rates: readonly number[]): Rates {
  return { best: Math.max(0, ...rates), median: lastHalfMedian(rates) };
}

/** RUNS timed decodes, one after another. */
async function sequentialRates(decodes: Decodes): Promise<Rates & { tokens: number[] }> {
  try {
    const rates: number[] = [];
    let tokens: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const result = await decodes.decode();
      rates.push(result.rate);
      tokens = result.tokens;
    }
    return { ...ratesOf(rates), tokens };
  } finally {
    await decodes.close();
  }
}

/** The Models page, set up as the user's first visit shows it, and its Predict button. */
async function openPlayground(server: CliServer) {
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
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const page = await context.newPage();
    await page.goto(server.ownerLink('/models'));
    const playground = page.getByTestId('playground');
    await playground
      .getByTestId('execution-provider-choice')
      .selectOption(WEBGPU ? 'auto' : 'wasm');
    await playground.getByTestId('max-tokens').fill(String(TOKENS));
    if (VARIANT !== null) {
      await playground.getByTestId('model-variant-choice').selectOption(VARIANT);
    }
    const neighborChoice = playground.getByTestId('neighbor-dataset');
    // The datasets arrive after the first paint; until then the choice is "none".
    await neighborChoice.locator('option').nth(1).waitFor({ state: 'attached' });
    if (!NEIGHBORS) await neighborChoice.selectOption('');
    const neighborDataset = await neighborChoice.evaluate((element) =>
      element instanceof HTMLSelectElement ? (element.selectedOptions[0]?.textContent ?? '') : '',
    );
    async function predict(): Promise<PageDecode> {
      await page.evaluate(() => Reflect.deleteProperty(window, 'terrariumLastDecode'));
      await playground.getByRole('button', { name: 'Predict' }).click();
      await page.waitForFunction(
        () => Reflect.get(window, 'terrariumLastDecode') !== undefined,
        null,
        { timeout: 120_000 },
      );
      const decode: unknown = await page.evaluate(() => Reflect.get(window, 'terrariumLastDecode'));
      if (!isPageDecode(decode)) throw new Error('the page exposed no decode');
      return decode;
    }
    return { neighborDataset, predict, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The page's decodes and Node's (as the server runs it, and on one thread), taken in turns, the
 * order rotating each run, so that all three see the same moments of a shared machine:
 * onnxruntime-node's rate swings 3× within seconds here (911-3,684 tokens/s in one run of 30), and
 * a block of Node's runs after the page's compared one stretch of that noise with another.
 */
async function pairedRates(server: CliServer) {
  const playground = await openPlayground(server);
  try {
    // The first click also loads the model and the wasm: it is the page's warm-up.
    let last = await playground.predict();
    const sides: Decodes[] = [
      await nodeDecodes(last, undefined, 'native'),
      await nodeDecodes(last, undefined, 'native, one thread'),
    ];
    try {
      const pageRates: number[] = [];
      const nodeRates: [number[], number[]] = [[], []];
      const ratios: [number[], number[]] = [[], []];
      let nodeTokens: number[][] = [];
      for (let run = 0; run < RUNS; run++) {
        const rates: number[] = [];
        const tokens: number[][] = [];
        // Run r starts at turn r % 3: the page first, second or last.
        for (let turn = 0; turn < 3; turn++) {
          const which = (run + turn) % 3;
          const side = which === 0 ? null : sides[which - 1];
          if (side === undefined) continue;
          if (side === null) {
            last = await playground.predict();
          } else {
            const result = await side.decode();
            rates[which - 1] = result.rate;
            tokens[which - 1] = result.tokens;
          }
        }
        const [native = 0, oneThread = 0] = rates;
        pageRates.push(last.tokensPerSecond);
        nodeRates[0].push(native);
        nodeRates[1].push(oneThread);
        ratios[0].push(last.tokensPerSecond / native);
        ratios[1].push(last.tokensPerSecond / oneThread);
        nodeTokens = tokens;
        progress(
          `run ${run}: page ${last.tokensPerSecond.toFixed(0)} tok/s on ${last.executionProvider}, node ${native.toFixed(0)}, node on one thread ${oneThread.toFixed(0)}`,
        );
      }
      return {
        page: ratesOf(pageRates),
        node: { ...ratesOf(nodeRates[0]), tokens: nodeTokens[0] ?? [] },
        nodeOneThread: { ...ratesOf(nodeRates[1]), tokens: nodeTokens[1] ?? [] },
        ratio: lastHalfMedian(ratios[0]),
        ratioOneThread: lastHalfMedian(ratios[1]),
        last,
        neighborDataset: playground.neighborDataset,
      };
    } finally {
      for (const side of sides) await side.close();
    }
  } finally {
    await playground.close();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'terrarium-bench-decode-'));
// The demo data gives the default example its recorded neighbors, as a user's first visit shows it.
const server = await serveDataDir(dataDir, ['--demo']);
try {
  progress(`server at ${server.url}`);
  const paired = await pairedRates(server);
  const { page: browser, node, nodeOneThread, last: decode } = paired;
  progress(`node: ${node.best.toFixed(0)} tok/s`);
  const oneByOne = await sequentialRates(await nodeDecodes(decode, 0));
  progress(`node, lookahead off: ${oneByOne.best.toFixed(0)} tok/s`);
  const nodeWasm = await sequentialRates(await nodeDecodes(decode, undefined, 'wasm'));
  progress(`node, onnxruntime-web wasm: ${nodeWasm.best.toFixed(0)} tok/s`);
  const same =
    JSON.stringify(decode.tokens) === JSON.stringify(node.tokens) &&
    JSON.stringify(nodeOneThread.tokens) === JSON.stringify(node.tokens) &&
    JSON.stringify(oneByOne.tokens) === JSON.stringify(node.tokens) &&
    JSON.stringify(nodeWasm.tokens) === JSON.stringify(node.tokens);
  console.log(
    JSON.stringify(
      {
        bench: 'browser-decode',
        neighbors_from: paired.neighborDataset,
        prompt_tokens: decode.promptTokens,
        grammar: decode.grammar,
        max_tokens: TOKENS,
        decoded_tokens: node.tokens.length,
        same_tokens: same,
        node_tokens_per_s: Math.round(node.best),
        node_lookahead_off_tokens_per_s: Math.round(oneByOne.best),
        node_web_wasm_tokens_per_s: Math.round(nodeWasm.best),
        weights: decode.variant,
        browser_provider: decode.executionProvider,
        browser_wasm_threads: decode.wasmThreads,
        browser_decodes_in: 'a Web Worker',
        browser_tokens_per_s: Math.round(browser.best),
        node_median_tokens_per_s: Math.round(node.median),
        browser_median_tokens_per_s: Math.round(browser.median),
        node_web_wasm_median_tokens_per_s: Math.round(nodeWasm.median),
        node_one_thread_median_tokens_per_s: Math.round(nodeOneThread.median),
        // The figures to compare: medians of the runs' ratios, page and Node decoding in turns.
        ratio_browser_over_node_paired: Number(paired.ratio.toFixed(3)),
        ratio_browser_over_node_one_thread_paired: Number(paired.ratioOneThread.toFixed(3)),
        ratio_browser_over_node_medians: Number((browser.median / node.median).toFixed(3)),
        ratio_browser_over_node: Number((browser.best / node.best).toFixed(3)),
        ratio_browser_over_node_lookahead_off: Number((browser.best / oneByOne.best).toFixed(3)),
        // The split of the gap: wasm itself against native, and the page against wasm in Node.
        ratio_node_wasm_over_node: Number((nodeWasm.best / node.best).toFixed(3)),
        ratio_browser_over_node_wasm: Number((browser.best / nodeWasm.best).toFixed(3)),
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
