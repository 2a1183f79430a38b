import { expect, test, type Page } from '@playwright/test';
import { renderPrompt } from '../packages/inference/src/index';
import { loadOnnxModelFolder } from '../packages/inference/src/node/index';
import type { Action } from '../packages/schema/src/index';
import { datasetIdByName, importThroughApi, TAU2_RETAIL, trajectoryIdOf } from './support/api';

/**
 * The bundled model (models/terrarium-wm-tiny) run in Chromium with onnxruntime-web from the Models
 * page, against the same model run in Node with onnxruntime-node through the same decoder.
 */

const TOKENS = 48;
// SwiftShader compiles every WebGPU shader on the CPU first (over a minute on this 2-core machine,
// then about a second per token): the WebGPU run decodes fewer tokens.
const WEBGPU_TOKENS = 8;
// The playground's example action (a held-out tau2 retail call), as the page parses it.
const ACTION: Action = {
  type: 'tool_call',
  name: 'find_user_id_by_name_zip',
  arguments: { first_name: 'Yusuf', last_name: 'Rossi', zip: '19122' },
  callId: null,
};

interface PageDecode {
  executionProvider: string;
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
    typeof Reflect.get(value, 'prompt') === 'string' &&
    typeof Reflect.get(value, 'text') === 'string' &&
    typeof Reflect.get(value, 'tokensPerSecond') === 'number' &&
    Array.isArray(tokens) &&
    tokens.every((token) => typeof token === 'number')
  );
}

/** Node's greedy decode of the same prompt: the reference the browser must reproduce exactly. */
async function nodeReference(prompt: string, maxTokens = TOKENS) {
  const { decoder, session } = await loadOnnxModelFolder();
  try {
    const started = performance.now();
    const result = await decoder.generate(prompt, { maxTokens });
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
): Promise<PageDecode> {
  await page.goto('/models');
  const playground = page.getByTestId('playground');
  await expect(playground.getByTestId('browser-model-choice')).toHaveValue('terrarium-wm-tiny');
  await playground.getByTestId('execution-provider-choice').selectOption(provider);
  await playground.getByTestId('max-tokens').fill(String(maxTokens));
  await playground.getByRole('button', { name: 'Predict' }).click();
  // Loading 3.8 MB of model and 28 MB of wasm, then decoding, on a loaded 2-core machine.
  await expect(playground.getByTestId('playground-outcome')).toBeVisible({ timeout });
  const decode: unknown = await page.evaluate(() => Reflect.get(window, 'terrariumLastDecode'));
  if (!isPageDecode(decode)) throw new Error('the page exposed no decode');
  return decode;
}

test('the bundled model runs in the browser on wasm and gives Node’s greedy tokens', async ({
  page,
}) => {
  const prompt = renderPrompt('tool', [], ACTION);
  const reference = await nodeReference(prompt);
  expect(reference.tokens.length).toBeGreaterThan(0);

  const decode = await predictInPage(page, 'wasm');
  const playground = page.getByTestId('playground');
  await expect(playground.getByTestId('execution-provider')).toHaveText('wasm');
  expect(decode.executionProvider).toBe('wasm');
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

test('with --enable-unsafe-webgpu the page runs the model on WebGPU, never falling back to wasm', async ({
  playwright,
  baseURL,
}) => {
  test.setTimeout(420_000);
  const prompt = renderPrompt('tool', [], ACTION);
  const reference = await nodeReference(prompt, WEBGPU_TOKENS);
  const browser = await playwright.chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: WEBGPU_ARGS,
  });
  try {
    const context = await browser.newContext(baseURL === undefined ? {} : { baseURL });
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
    const decode = await predictInPage(page, 'webgpu', WEBGPU_TOKENS, 360_000);
    await expect(page.getByTestId('execution-provider')).toHaveText('webgpu');
    await expect(page.getByTestId('provider-fallback')).toHaveCount(0);
    expect(decode.executionProvider).toBe('webgpu');
    expect(decode.prompt).toBe(prompt);
    expect(decode.tokens).toEqual(reference.tokens);
    console.log(
      `WebGPU adapter: ${hasAdapter ? 'yes' : 'no'}; ran on ${decode.executionProvider} at ` +
        `${decode.tokensPerSecond.toFixed(0)} tok/s (Node ${reference.tokensPerSecond.toFixed(0)})`,
    );
  } finally {
    await browser.close();
  }
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
  await run.getByTestId('run-max-tokens').fill('24');
  await run.getByRole('button', { name: 'Run in browser' }).click();
  const rows = run.getByTestId('browser-run-step');
  await expect(rows).toHaveCount(4, { timeout: 60_000 });
  // The first transition's real observation is the user id the lookup returned.
  await expect(rows.first()).toContainText('isabella_lopez_6490');
  for (const row of await rows.all()) {
    await expect(row.locator('[data-metric="token-f1"]')).toHaveText(/^[01]\.\d{3}$/);
  }
  await expect(run.getByTestId('trajectory-run-summary')).toContainText(
    '4 transition(s) on terrarium-wm-tiny',
  );
});

test('the browser model fills the Compare view beside replay', async ({ page, request }) => {
  const dataset = 'browser-model-compare';
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
  const summary = page.getByTestId('compare-summary');
  await expect(summary.locator(`tr[data-sim="${browserSim}"]`)).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId('compare-step')).toHaveCount(4);
  await expect(page.getByTestId('sim-prediction')).toHaveCount(2);
  await expect(
    page.locator(`[data-testid="sim-prediction"][data-sim="${browserSim}"]`),
  ).toBeVisible();
});
