import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  expect,
  test,
  type APIRequestContext,
  type Page,
  type PlaywrightWorkerArgs,
} from '@playwright/test';
import {
  buildPrompt,
  createHfTokenizer,
  DEFAULT_EXAMPLE,
  observationGrammar,
  type Grammar,
} from '../packages/inference/src/index';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from '../packages/inference/src/node/index';
import type { Action } from '../packages/schema/src/index';
import { readTrajectories } from '../packages/formats/src/index';
import { actionKey, transitionsOf } from '../packages/worlds/src/index';
import { ownerState } from './support/token';
import { datasetIdByName, importThroughApi, TAU2_RETAIL, trajectoryIdOf } from './support/api';

function numbers(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((id) => typeof id === 'number') ? value : null;
}

/** greedy-reference.json: train.py's own greedy decode (fp32) of a fixed held-out prompt. */
function readGreedyReference(): { promptIds: number[]; maxTokens: number; outputIds: number[] } {
  const reference: unknown = JSON.parse(readFileSync(GREEDY_REFERENCE, 'utf8'));
  const field = (key: string): unknown =>
    typeof reference === 'object' && reference !== null ? Reflect.get(reference, key) : null;
  const promptIds = numbers(field('promptIds'));
  const outputIds = numbers(field('outputIds'));
  const maxTokens = field('maxTokens');
  if (promptIds === null || outputIds === null || typeof maxTokens !== 'number') {
    throw new Error('greedy-reference.json: expected {promptIds, outputIds, maxTokens}');
  }
  return { promptIds, outputIds, maxTokens };
}

/**
 * The bundled model (models/terrarium-wm-tiny) run in Chromium with onnxruntime-web in the page's
 * decoding Web Worker, from the Models page and Compare, against the same model run in Node with
 * onnxruntime-node through the same decoder.
 */

// The browser loads the int8 file by default when the folder has one, as Node does here.
const HAS_INT8 = existsSync(join(BUNDLED_MODEL_FOLDER, 'onnx', 'model_quantized.onnx'));
const DEFAULT_FILE = HAS_INT8 ? 'model_quantized.onnx' : 'model.onnx';
const GREEDY_REFERENCE = join(BUNDLED_MODEL_FOLDER, 'greedy-reference.json');
const TOKENIZER = createHfTokenizer(
  JSON.parse(readFileSync(join(BUNDLED_MODEL_FOLDER, 'tokenizer.json'), 'utf8')),
);

/** The demo's tau2-bench dataset (demo/data/tau2-bench), shipped with the repository. */
const DEMO_TAU2 = join(import.meta.dirname, '..', 'demo', 'data', 'tau2-bench');
const DEMO_TAU2_FILES = readdirSync(DEMO_TAU2)
  .filter((name) => name.endsWith('.json'))
  .map((name) => join(DEMO_TAU2, name));

const TOKENS = 48;
// SwiftShader compiles every WebGPU shader on the CPU first (over a minute on this 2-core machine,
// then about a second per token): the WebGPU run decodes fewer tokens.
const WEBGPU_TOKENS = 8;
// The playground's default example (packages/inference DEFAULT_EXAMPLE), as the page parses it.
const ACTION: Action = DEFAULT_EXAMPLE.action;

interface PageDecode {
  executionProvider: string;
  variant: string;
  prompt: string;
  tokens: number[];
  text: string;
  tokensPerSecond: number;
}

function isPageDecode(value: unknown): value is PageDecode {
  if (typeof value !== 'object' || value === null) return false;
  const tokens: unknown = Reflect.get(value, 'tokens');
  return (
    typeof Reflect.get(value, 'executionProvider') === 'string' &&
    typeof Reflect.get(value, 'variant') === 'string' &&
    typeof Reflect.get(value, 'prompt') === 'string' &&
    typeof Reflect.get(value, 'text') === 'string' &&
    typeof Reflect.get(value, 'tokensPerSecond') === 'number' &&
    Array.isArray(tokens) &&
    tokens.every((token) => typeof token === 'number')
  );
}

/** Node's greedy decode of the same prompt: the reference the browser must reproduce exactly. */
async function nodeReference(
  prompt: string,
  maxTokens = TOKENS,
  file = DEFAULT_FILE,
  grammar?: Grammar,
) {
  const { decoder, session } = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER, { file });
  try {
    const started = performance.now();
    const result = await decoder.generate(prompt, {
      maxTokens,
      ...(grammar === undefined ? {} : { grammar }),
    });
    const seconds = (performance.now() - started) / 1000;
    return { ...result, tokensPerSecond: result.tokens.length / seconds };
  } finally {
    await session.release();
  }
}

/** Runs the playground in the browser with the chosen provider and returns what the page decoded. */
async function predictInPage(
  page: Page,
  provider: 'auto' | 'wasm' | 'webgpu',
  maxTokens = TOKENS,
  timeout = 60_000,
  setUp: (playground: ReturnType<Page['getByTestId']>) => Promise<void> = async (playground) => {
    // No retrieved context: the prompt is the action alone, whatever datasets the store holds.
    await playground.getByTestId('neighbor-dataset').selectOption('');
  },
): Promise<PageDecode> {
  await page.goto('/models');
  const playground = page.getByTestId('playground');
  await expect(playground.getByTestId('browser-model-choice')).toHaveValue('terrarium-wm-tiny');
  await expect(playground.getByTestId('model-variant-choice')).toHaveValue('int8');
  await playground.getByTestId('execution-provider-choice').selectOption(provider);
  await playground.getByTestId('max-tokens').fill(String(maxTokens));
  await setUp(playground);
  await playground.getByRole('button', { name: 'Predict' }).click();
  // Loading 3.8 MB of model and 28 MB of wasm, then decoding, on a loaded 2-core machine.
  await expect(playground.getByTestId('playground-outcome')).toBeVisible({ timeout });
  const decode: unknown = await page.evaluate(() => Reflect.get(window, 'terrariumLastDecode'));
  if (!isPageDecode(decode)) throw new Error('the page exposed no decode');
  return decode;
}

const EXAMPLE_PROMPT = buildPrompt(
  { domain: 'tool', history: [], action: ACTION, neighbors: [] },
  TOKENIZER,
).text;
/** The grammar the page holds that prompt's decode to (a tool, no neighbor: JSON once opened). */
const EXAMPLE_GRAMMAR = observationGrammar([], 'tool');

test('the bundled model runs in the browser on wasm and gives Node’s greedy tokens', async ({
  page,
}) => {
  const prompt = EXAMPLE_PROMPT;
  const reference = await nodeReference(prompt, TOKENS, DEFAULT_FILE, EXAMPLE_GRAMMAR);
  expect(reference.tokens.length).toBeGreaterThan(0);

  const decode = await predictInPage(page, 'wasm');
  const playground = page.getByTestId('playground');
  await expect(playground.getByTestId('execution-provider')).toHaveText('wasm');
  expect(decode.executionProvider).toBe('wasm');
  expect(decode.variant).toBe(HAS_INT8 ? 'int8' : 'fp32');
  // A folder without the int8 file says that the fp32 one ran instead.
  await expect(playground.getByTestId('variant-note')).toHaveCount(HAS_INT8 ? 0 : 1);
  // wasm was asked for: no fallback to report.
  await expect(playground.getByTestId('provider-fallback')).toHaveCount(0);
  // Same prompt format, same decoder, same model: the very same token ids and text.
  expect(decode.prompt).toBe(prompt);
  expect(decode.tokens).toEqual(reference.tokens);
  expect(decode.text).toBe(reference.text);
  await expect(playground.getByTestId('prediction-stream')).toHaveText(reference.text);
  await expect(playground.getByTestId('decode-token-ids')).toHaveText(
    JSON.stringify(reference.tokens),
    { useInnerText: false },
  );
  await expect(playground.getByTestId('tokens-per-second')).toHaveText(/^\d+$/);
  // The evaluation table of the model folder (fidelity.json), with its intervals, on the same page.
  const fidelity: unknown = JSON.parse(
    readFileSync(join(BUNDLED_MODEL_FOLDER, 'fidelity.json'), 'utf8'),
  );
  const retail: unknown = Reflect.get(
    Reflect.get(Object(fidelity), 'bySource') ?? {},
    'tau2/retail',
  );
  const content: unknown = Reflect.get(Reflect.get(Object(retail), 'model') ?? {}, 'content');
  const figure = (key: string): string => {
    const value: unknown = Reflect.get(Object(content), key);
    if (typeof value !== 'number')
      throw new Error(`fidelity.json: no tau2/retail model content.${key}`);
    // Shown on the 0-100 scale of every score on the pages.
    return (value * 100).toFixed(1);
  };
  await expect(
    page
      .getByTestId('evaluation-table')
      .locator('tr[data-source="tau2/retail"] [data-sim="model"][data-metric="content"]'),
  ).toHaveText(`${figure('mean')} [${figure('low')}, ${figure('high')}]`);
  // The held-out airline tasks about customers the training side has are also left out, and said so.
  await expect(
    page
      .getByTestId('evaluation-table')
      .locator('tr[data-source="tau-bench-v1/airline (unseen customers only)"] th'),
  ).toHaveText('tau-bench-v1/airline (unseen customers only) (97 transitions)');
  await expect(page.locator('tr[data-source="tau2/airline (unseen customers only)"]')).toHaveCount(
    0,
  );
  await expect(page.getByTestId('unseen-customers')).toContainText('no such row');
  await expect(page.getByTestId('not-a-bench-split')).toContainText(
    'so retrieval’s figure there differs from the one here',
  );
  console.log(
    `decode ${decode.tokens.length} tokens: browser wasm ${decode.tokensPerSecond.toFixed(0)} tok/s, ` +
      `Node ${reference.tokensPerSecond.toFixed(0)} tok/s`,
  );
});

// Headless Debian Chromium offers a WebGPU adapter only with this flag (a SwiftShader CPU one here,
// which onnxruntime-web's webgpu provider runs correctly: shared/notes/stack-notes.md). Launch
// options are per worker in Playwright, so this test launches its own browser.
const WEBGPU_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-webgpu',
];

/** The playground's greedy decodes on WebGPU (headless Chromium with the flag), int8 and fp32, and Node's. */
async function decodeOnWebGpu(
  playwright: PlaywrightWorkerArgs['playwright'],
  baseURL: string | undefined,
) {
  const prompt = EXAMPLE_PROMPT;
  const browser = await playwright.chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: WEBGPU_ARGS,
  });
  try {
    const context = await browser.newContext({
      ...(baseURL === undefined ? {} : { baseURL }),
      storageState: ownerState(),
    });
    const page = await context.newPage();
    await page.goto('/models');
    const hasAdapter = await page.evaluate(async () => {
      const gpu: unknown = Reflect.get(navigator, 'gpu');
      if (typeof gpu !== 'object' || gpu === null) return false;
      const request: unknown = Reflect.get(gpu, 'requestAdapter');
      if (typeof request !== 'function') return false;
      const adapter: unknown = await Reflect.apply(request, gpu, []).catch(() => null);
      return adapter !== null && adapter !== undefined;
    });
    // The flag gives headless Chromium a (SwiftShader) adapter here; without one this test has
    // nothing to test, and a silent pass on wasm would hide it.
    expect(hasAdapter, 'Chromium offered no WebGPU adapter with --enable-unsafe-webgpu').toBe(true);
    const runs = [];
    for (const [variant, file] of [
      ['int8', 'model_quantized.onnx'],
      ['fp32', 'model.onnx'],
    ] as const) {
      const reference = await nodeReference(prompt, WEBGPU_TOKENS, file, EXAMPLE_GRAMMAR);
      const decode = await predictInPage(
        page,
        'webgpu',
        WEBGPU_TOKENS,
        360_000,
        async (playground) => {
          await playground.getByTestId('neighbor-dataset').selectOption('');
          await playground.getByTestId('model-variant-choice').selectOption(variant);
        },
      );
      await expect(page.getByTestId('execution-provider')).toHaveText('webgpu');
      await expect(page.getByTestId('provider-fallback')).toHaveCount(0);
      console.log(
        `WebGPU ${variant}: ran on ${decode.executionProvider} at ${decode.tokensPerSecond.toFixed(1)} tok/s ` +
          `(Node ${reference.tokensPerSecond.toFixed(0)})`,
      );
      runs.push({ variant, decode, reference });
    }
    return { prompt, runs };
  } finally {
    await browser.close();
  }
}

// One pair of decodes on WebGPU serves both tests below (~30 s each on SwiftShader).
test.describe('on WebGPU (headless Chromium with --enable-unsafe-webgpu)', () => {
  let webGpu: Awaited<ReturnType<typeof decodeOnWebGpu>>;
  test.beforeAll(async ({ playwright }, testInfo) => {
    testInfo.setTimeout(600_000);
    webGpu = await decodeOnWebGpu(playwright, testInfo.project.use.baseURL);
  });

  test('the page runs both files on WebGPU, never falling back to wasm', () => {
    expect(
      webGpu.runs.map((run) => [run.variant, run.decode.variant, run.decode.executionProvider]),
    ).toEqual([
      ['int8', 'int8', 'webgpu'],
      ['fp32', 'fp32', 'webgpu'],
    ]);
    for (const run of webGpu.runs) {
      expect(run.decode.prompt).toBe(webGpu.prompt);
      expect(run.decode.tokens.length).toBeGreaterThan(0);
    }
  });

  // Both failed before the export was finished for WebGPU (models/tiny_gpt.py `finish_onnx`): the
  // fp32 file did not run at all (onnxruntime-web's WebGPU MatMul refused the copy head's 1-D null
  // key), and the int8 one decoded other tokens from the second on (its int8 copy-key product came
  // out wrong there), so a user with a GPU got worse answers than one without.
  test('the page gives Node’s greedy tokens with each file', () => {
    for (const run of webGpu.runs) {
      expect({ variant: run.variant, tokens: run.decode.tokens }).toEqual({
        variant: run.variant,
        tokens: run.reference.tokens,
      });
    }
  });
});

test('the browser model predicts a real trajectory step by step, scored against what came back', async ({
  page,
  request,
}) => {
  const dataset = 'browser-model-retail';
  await importThroughApi(request, TAU2_RETAIL, dataset);
  const datasetId = await datasetIdByName(request, dataset);
  // The first retail simulation: 4 transitions.
  const trajectoryId = await trajectoryIdOf(
    request,
    datasetId,
    '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae',
  );

  await page.goto('/models');
  const run = page.getByTestId('trajectory-run');
  await run.getByTestId('run-dataset').selectOption(datasetId);
  await run.getByTestId('run-trajectory').selectOption(trajectoryId);
  // Its task is one the model trained on (split.json): the page says so before any figure.
  await expect(run.getByTestId('model-split-note')).toHaveText(
    "terrarium-wm-tiny was trained on this trajectory's task (tau2/retail/40): its scores here show what it recalls, not how it does on an unseen task. Its held-out figures are on the Models page.",
  );
  await run.getByTestId('run-max-tokens').fill('24');
  // WebGPU asked for where this browser has none (no --enable-unsafe-webgpu here): the run says
  // it fell back, as the playground does (walk 46 saw it run on wasm without a word).
  await run.getByLabel('Runs on').selectOption('webgpu');
  await run.getByRole('button', { name: 'Run in browser' }).click();
  const rows = run.getByTestId('browser-run-step');
  await expect(rows).toHaveCount(4, { timeout: 60_000 });
  await expect(run.getByTestId('trajectory-run-fallback')).toHaveText(
    'WebGPU was requested, but the browser offered no WebGPU adapter (no usable GPU): the model ran on wasm (CPU) instead, slower.',
  );
  // The first transition's real observation is the user id the lookup returned.
  await expect(rows.first()).toContainText('isabella_lopez_6490');
  for (const row of await rows.all()) {
    // A score on the pages' 0-100 scale, one decimal.
    await expect(row.locator('[data-metric="content"]')).toHaveText(/^(100\.0|\d{1,2}\.\d)$/);
    await expect(row.locator('[data-metric="token-f1"]')).toHaveText(/^(100\.0|\d{1,2}\.\d)$/);
  }
  // It leads with the content score, as the leaderboard, Compare and the held-out table do.
  await expect(run.getByTestId('trajectory-run-summary')).toContainText(
    /^4 transitions on terrarium-wm-tiny \(wasm, int8\): mean content \d{1,3}\.\d, token F1 /,
  );
});

/** Compare with replay and the bundled model in this browser, on a real retail trajectory. */
async function compareInBrowser(page: Page, request: APIRequestContext, dataset: string) {
  await importThroughApi(request, TAU2_RETAIL, dataset);
  const datasetId = await datasetIdByName(request, dataset);
  const trajectoryId = await trajectoryIdOf(
    request,
    datasetId,
    '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae',
  );
  const browserSim = 'onnx:browser/terrarium-wm-tiny';
  await page.goto(
    `/datasets/${datasetId}/trajectories/${trajectoryId}/compare?sims=replay,${encodeURIComponent(browserSim)}&step=5`,
  );
  // Offered in the picker beside the server's simulators, and run here rather than on the server.
  await expect(page.getByText('Bundled model in this browser')).toBeVisible();
  await expect(page.getByTestId('model-split-note')).toHaveAttribute('data-side', 'training');
  const summary = page.getByTestId('compare-summary');
  await expect(summary.locator(`tr[data-sim="${browserSim}"]`)).toBeVisible({ timeout: 220_000 });
  await expect(page.getByTestId('compare-step')).toHaveCount(4);
  await expect(page.getByTestId('sim-prediction')).toHaveCount(2);
  await expect(
    page.locator(`[data-testid="sim-prediction"][data-sim="${browserSim}"]`),
  ).toBeVisible();
  const run: unknown = await page.evaluate(() => Reflect.get(window, 'terrariumLastBrowserRun'));
  return stepsOfRun(run);
}

// Decoding is held to JSON when the best recorded answer shown is JSON, and otherwise from the
// moment the model opens an object or array (`observationGrammar`). Step 11 of this trajectory is
// the second case: its best neighbor is plain text, the model starts the order's JSON anyway, and
// without the grammar it repeated a digit until the 256-token budget cut an unparseable answer.
test('the browser model fills Compare beside replay, with the tool’s JSON where the real answer is JSON', async ({
  page,
  request,
}) => {
  // Four predictions of up to 256 tokens each, on a loaded 2-core machine.
  test.setTimeout(240_000);
  const steps = await compareInBrowser(page, request, 'browser-model-compare');
  expect(steps).toHaveLength(4);
  // Every transition gets a prediction from the model in this page.
  expect(steps.map((step) => step.predicted.length > 0)).toEqual([true, true, true, true]);
  const mismatched = steps.filter(
    (step) => jsonShape(step.real) !== null && jsonShape(step.predicted) !== jsonShape(step.real),
  );
  expect(mismatched, 'steps whose prediction is not the tool’s JSON where the real one is').toEqual(
    [],
  );
});

/** `object`, `array` or `scalar` when the text parses as JSON, else null. */
function jsonShape(text: string): 'object' | 'array' | 'scalar' | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value)
      ? 'array'
      : typeof value === 'object' && value !== null
        ? 'object'
        : 'scalar';
  } catch {
    return null;
  }
}

function stepsOfRun(run: unknown): { step: number; real: string; predicted: string }[] {
  const steps: unknown = typeof run === 'object' && run !== null ? Reflect.get(run, 'steps') : null;
  if (!Array.isArray(steps)) throw new Error('the page exposed no browser run');
  return steps.map((step: unknown) => {
    const content = (key: string): string => {
      const observation: unknown =
        typeof step === 'object' && step !== null ? Reflect.get(step, key) : null;
      const text: unknown =
        typeof observation === 'object' && observation !== null
          ? Reflect.get(observation, 'content')
          : null;
      if (typeof text !== 'string') throw new Error(`a step without ${key} content`);
      return text;
    };
    const index: unknown =
      typeof step === 'object' && step !== null ? Reflect.get(step, 'step') : -1;
    return {
      step: typeof index === 'number' ? index : -1,
      real: content('real'),
      predicted: content('predicted'),
    };
  });
}

/**
 * What the environment answers to this action in the demo's real tau2-bench files: the
 * recorded observation of this very call when the file has it, and the shapes of every recorded
 * answer of the same tool (a user id lookup answers plain text, an order lookup JSON).
 */
async function recordedAnswers(
  action: Action,
): Promise<{ exact: string | null; shapes: Set<ReturnType<typeof jsonShape>> }> {
  const { createReadStream } = await import('node:fs');
  let exact: string | null = null;
  const shapes = new Set<ReturnType<typeof jsonShape>>();
  const name = action.type === 'tool_call' ? action.name : null;
  for (const file of DEMO_TAU2_FILES) {
    for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
      if (event.type !== 'trajectory') continue;
      for (const { transition } of transitionsOf(event.trajectory)) {
        if (actionKey(transition.action) === actionKey(action)) {
          exact = transition.observation.content;
        }
        if (transition.action.type === 'tool_call' && transition.action.name === name) {
          shapes.add(jsonShape(transition.observation.content));
        }
      }
    }
  }
  return { exact, shapes };
}

function parseExampleAction(text: string): Action {
  const parsed: unknown = JSON.parse(text);
  const name: unknown =
    typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'name') : null;
  const args: unknown =
    typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'arguments') : null;
  if (
    typeof name !== 'string' ||
    typeof args !== 'object' ||
    args === null ||
    Array.isArray(args)
  ) {
    throw new Error(`the default example is not a tool call: ${text}`);
  }
  return { type: 'tool_call', name, arguments: JSON.parse(JSON.stringify(args)), callId: null };
}

test('the Models page’s default example gives a well-formed observation on the demo data', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  // The demo's tau2 dataset, as `scripts/start.sh` loads it: the retrieved context comes from it.
  for (const file of DEMO_TAU2_FILES)
    await importThroughApi(request, file, DEFAULT_EXAMPLE.dataset);
  const datasetId = await datasetIdByName(request, DEFAULT_EXAMPLE.dataset);
  await page.goto('/models');
  const playground = page.getByTestId('playground');
  await expect(playground.getByTestId('neighbor-dataset')).toHaveValue(datasetId);
  const action = parseExampleAction(await playground.getByTestId('playground-action').inputValue());
  // The example is a call the model trained on, and the page says so.
  await expect(playground.getByTestId('example-recall-note')).toContainText(
    'This call is recorded in 5 tau2-bench telecom tasks, 4 of which the bundled model trained on',
  );
  const recorded = await recordedAnswers(action);
  expect(recorded.shapes.size, 'the demo data has this tool').toBeGreaterThan(0);
  // Everything as a new user finds it: int8, WebGPU if available, the page's token budget.
  await playground.getByRole('button', { name: 'Predict' }).click();
  await expect(playground.getByTestId('playground-outcome')).toBeVisible({ timeout: 150_000 });
  const decode: unknown = await page.evaluate(() => Reflect.get(window, 'terrariumLastDecode'));
  if (!isPageDecode(decode)) throw new Error('the page exposed no decode');
  await expect(playground.getByTestId('prompt-neighbors')).toContainText(
    `retrieved transition(s) from ${DEFAULT_EXAMPLE.dataset}`,
  );
  expect(decode.prompt).toMatch(/^@tool\n<\|N\|>/);
  console.log(
    `default example: recorded ${JSON.stringify(recorded.exact)}, predicted ${JSON.stringify(decode.text)}`,
  );
  // The model ended the observation itself, within the budget.
  expect(Reflect.get(decode, 'finishReason')).toBe('eos');
  // The tool's JSON where the real observation is JSON (same shape), plain text where it is not;
  // for a call the data does not hold, a shape this tool's recorded answers have.
  if (recorded.exact !== null) expect(jsonShape(decode.text)).toBe(jsonShape(recorded.exact));
  else expect([...recorded.shapes]).toContain(jsonShape(decode.text));
  expect(decode.text.trim()).not.toBe('');

  // On the server, the same model reads the same retrieved context (found by `/v1` as its
  // retrieval ranks them), and the page shows them as it does for the browser.
  const neighbors = playground.getByTestId('prompt-neighbors');
  const shownInBrowser = await neighbors.locator(':scope > :not(summary)').allInnerTexts();
  await playground.getByLabel('on the server').check();
  await expect(playground.getByTestId('neighbor-dataset')).toHaveValue(datasetId);
  await playground.getByRole('button', { name: 'Predict' }).click();
  await expect(playground.getByTestId('execution-provider')).toHaveAttribute(
    'data-where',
    'server',
    { timeout: 150_000 },
  );
  await expect(neighbors).toContainText(
    `2 retrieved transition(s) from ${DEFAULT_EXAMPLE.dataset}`,
  );
  expect(await neighbors.locator(':scope > :not(summary)').allInnerTexts()).toEqual(shownInBrowser);
  const served = (await playground.getByTestId('prediction-stream').innerText()).trim();
  if (recorded.exact !== null) expect(jsonShape(served)).toBe(jsonShape(recorded.exact));
  else expect([...recorded.shapes]).toContain(jsonShape(served));
});

test('the greedy decode of the training script’s held-out prompt is the same in the browser', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const reference = readGreedyReference();
  const { maxTokens } = reference;
  // The playground decodes text: the reference prompt's ids as text encode back to the same ids.
  const prompt = TOKENIZER.describe(reference.promptIds);
  expect(TOKENIZER.encode(prompt)).toEqual(reference.promptIds);
  // fp32 against train.py's own decode; int8 (whose rounding may change a greedy choice) against
  // onnxruntime-node decoding the same int8 file.
  for (const weights of HAS_INT8 ? ['fp32', 'int8'] : ['fp32']) {
    const decode = await predictInPage(
      page,
      'wasm',
      Math.min(maxTokens, 512),
      120_000,
      async (playground) => {
        await playground.getByTestId('model-variant-choice').selectOption(weights);
        await playground.getByTestId('edit-prompt').check();
        await playground.getByTestId('prompt-text').fill(prompt);
      },
    );
    expect(decode.variant).toBe(weights);
    expect(decode.prompt).toBe(prompt);
    const expected =
      weights === 'fp32'
        ? reference.outputIds
        : (await nodeReference(prompt, maxTokens, 'model_quantized.onnx')).tokens;
    expect(decode.tokens, `${weights} weights in the browser`).toEqual(expected);
  }
});

test('a WebGPU run asked for where there is no adapter says it fell back to wasm, and why', async ({
  page,
}) => {
  // Playwright's default Chromium here has no --enable-unsafe-webgpu, so no adapter.
  const decode = await predictInPage(page, 'webgpu', 4);
  expect(decode.executionProvider).toBe('wasm');
  await expect(page.getByTestId('execution-provider')).toHaveText('wasm');
  await expect(page.getByTestId('provider-fallback')).toHaveText(
    /^WebGPU was requested, but (the browser offered no WebGPU adapter \(no usable GPU\)|this browser exposes no WebGPU API \(navigator\.gpu\)): the model ran on wasm \(CPU\) instead, slower\.$/,
  );
});

test('an output that runs in circles is stopped in the worker, and the page says so', async ({
  page,
}) => {
  await page.goto('/models');
  const playground = page.getByTestId('playground');
  await playground.getByTestId('neighbor-dataset').selectOption('');
  await playground.getByTestId('execution-provider-choice').selectOption('wasm');
  await playground.getByTestId('max-tokens').fill('512');
  // Without retrieved context the model repeats one phrase back to back after a few tokens.
  await playground.getByTestId('playground-action').fill('ls -la /tmp && cat /etc/hostname');
  await playground.getByRole('button', { name: 'Predict' }).click();
  const outcome = playground.getByTestId('playground-outcome');
  await expect(outcome).toBeVisible({ timeout: 60_000 });
  await expect(outcome).toContainText('stopped at: repetition');
  await expect(outcome).toContainText('stopped where the output began repeating itself');
  const decode: unknown = await page.evaluate(() => Reflect.get(window, 'terrariumLastDecode'));
  const tokens: unknown = Reflect.get(Object(decode), 'tokens');
  // Stopped within a few dozen tokens, not at the budget of 512.
  expect(Array.isArray(tokens) ? tokens.length : 0).toBeLessThan(128);
});

test('Stop ends a decode in the worker and the page can predict again', async ({ page }) => {
  await page.goto('/models');
  const playground = page.getByTestId('playground');
  await playground.getByTestId('neighbor-dataset').selectOption('');
  await playground.getByTestId('execution-provider-choice').selectOption('wasm');
  await playground.getByTestId('max-tokens').fill('512');
  // An action the model never saw: it rambles on to the budget unless stopped (it runs in
  // circles, which decoding would otherwise stop by itself within a few dozen tokens).
  await playground.getByTestId('stop-cycles').uncheck();
  await playground.getByTestId('playground-action').fill('ls -la /tmp && cat /etc/hostname');
  await playground.getByRole('button', { name: 'Predict' }).click();
  // Stopped as soon as the worker streams (whitespace counts: the text is not trimmed here).
  await expect
    .poll(
      async () => (await playground.getByTestId('prediction-stream').textContent())?.length ?? 0,
      {
        timeout: 60_000,
      },
    )
    .toBeGreaterThan(0);
  await playground.getByRole('button', { name: 'Stop' }).click();
  await expect(playground.getByTestId('playground-stopped')).toBeVisible();
  const stoppedAt = await playground.getByTestId('prediction-stream').textContent();
  // The page answers while the worker decodes and after: a new prediction runs to its end.
  await playground.getByTestId('max-tokens').fill('4');
  await playground.getByRole('button', { name: 'Predict' }).click();
  await expect(playground.getByTestId('playground-outcome')).toBeVisible({ timeout: 60_000 });
  expect(stoppedAt?.length ?? 0).toBeGreaterThan(0);
});

test('the Models page opens a served model’s config in a tab by a one-time link', async ({
  page,
}) => {
  // walk 42: the link carried the session's proof, which the browser then kept in its history.
  await page.goto('/models');
  const [tab] = await Promise.all([
    page.waitForEvent('popup'),
    page
      .getByTestId('models-list')
      .getByRole('button', { name: '/models/terrarium-wm-tiny/' })
      .click(),
  ]);
  // The tab opens at the click (popup blockers), and goes to the link once it has come back.
  await tab.waitForURL(/\/config\.json\?/);
  expect(new URL(tab.url()).search).toMatch(/^\?download_code=[\w-]{32}$/);
  const config: unknown = JSON.parse(await tab.locator('body').innerText());
  expect(Reflect.get(Object(config), 'model_type')).toBe('gpt2');
  // Used up: the same address again opens nothing.
  const again = await tab.reload();
  expect(again?.status()).toBe(401);
  await tab.close();
});
