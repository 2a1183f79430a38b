import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { datasetIdByName, importThroughApi, trajectoryIdOf } from './support/api';
import { HOSTILE_HTML, startSeededServer } from './support/seeded-server';
import { localOwnerLink } from '../packages/api/src/http/request-gate';
import { e2eToken } from './support/token';
import { pwnedFlags, watchPage } from './support/watch-page';

const CORPUS = resolve(import.meta.dirname, 'fixtures/openai-messages-xss.jsonl');
const DATASET = 'viewer-xss';

interface CorpusStep {
  kind: 'message' | 'tool_call';
  text: string;
  observation: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The corpus trajectory's steps and its system prompt, read from the fixture itself. */
function readCorpus(): { systemPrompt: string; steps: CorpusStep[]; secondId: string } {
  const [first, second] = readFileSync(CORPUS, 'utf8')
    .trim()
    .split('\n')
    .map((line): unknown => JSON.parse(line));
  if (
    !isRecord(first) ||
    !Array.isArray(first.messages) ||
    !isRecord(second) ||
    typeof second.id !== 'string'
  ) {
    throw new Error('unexpected XSS corpus layout');
  }
  let systemPrompt = '';
  const steps: CorpusStep[] = [];
  for (const message of first.messages) {
    if (!isRecord(message) || typeof message.role !== 'string') continue;
    const content = typeof message.content === 'string' ? message.content : null;
    if (message.role === 'system' && content) systemPrompt = content;
    else if (message.role === 'tool') {
      const last = steps.at(-1);
      if (last && content !== null) last.observation = content;
    } else if (Array.isArray(message.tool_calls)) {
      steps.push({ kind: 'tool_call', text: 'render_page', observation: null });
    } else if (content !== null) steps.push({ kind: 'message', text: content, observation: null });
  }
  return { systemPrompt, steps, secondId: second.id };
}

/** Markup the app itself never renders: had a payload been parsed as HTML, one of these would exist. */
async function expectNoInjectedMarkup(page: Page): Promise<void> {
  await expect(
    page.locator(
      'script:not([src]), img[src="x"], svg[onload], [onerror], [onload], [onfocus], [ontoggle], a[href^="javascript:"], iframe:not(.html-frame), object, body style, details, math',
    ),
  ).toHaveCount(0);
}

/** Console errors the browser itself prints when the sandbox or the CSP stops a payload. */
const BROWSER_REFUSALS =
  /^(Blocked (script execution|autofocusing) .*'allow-scripts' permission is not set\.|Refused to refresh about:srcdoc to a javascript: URL|.* violates the following Content Security Policy directive.* The (action|request) has been blocked\..*)$/s;

test('hostile tool results, messages and prompts are shown as text and execute nothing', async ({
  page,
  context,
  request,
  baseURL,
}) => {
  const watch = watchPage(context, page, new URL(baseURL ?? '').origin);
  const corpus = readCorpus();
  expect(corpus.steps).toHaveLength(17);

  const report = await importThroughApi(request, CORPUS, DATASET);
  expect(report).toEqual({ dataset: DATASET, trajectories: 2, transitions: 15, quarantined: 0 });
  const datasetId = await datasetIdByName(request, DATASET);

  // The list shows the hostile external id and task as text.
  await page.goto(`/datasets/${datasetId}`);
  await expect(page.getByTestId('trajectory-total')).toHaveText('2 trajectories');
  await expect(page.getByRole('link', { name: corpus.secondId, exact: true })).toBeVisible();

  const trajectoryId = await trajectoryIdOf(request, datasetId, 'xss-corpus');
  await page.goto(`/datasets/${datasetId}/trajectories/${trajectoryId}`);
  const contextPanel = page.getByTestId('context-panel');
  await expect(page.getByTestId('context-system-prompt')).toContainText(corpus.systemPrompt);
  await page.getByTestId('context-tools').getByRole('button', { name: /Tools/ }).click();
  await expect(contextPanel).toContainText('Renders <img src=x onerror=');

  const kinds = new Set<string>();
  for (const [position, step] of corpus.steps.entries()) {
    const number = position + 1;
    if (position > 0) await page.keyboard.press('j');
    await expect(page.getByTestId('step-counter')).toHaveText(
      `Step ${number} / ${corpus.steps.length}`,
    );
    const action = page.getByTestId('step-action');
    await expect(action).toContainText(step.text);
    const observation = page.getByTestId('observation');
    if (step.observation === null) {
      await expect(observation).toHaveAttribute('data-kind', 'none');
      continue;
    }
    const kind = await observation.getAttribute('data-kind');
    kinds.add(kind ?? 'missing');
    if (kind === 'json') {
      // The tree shows each string value; the payloads are in them verbatim.
      await expect(observation).toContainText(`<img src=x onerror="window.__pwned = 'json'">`);
      await expect(observation).toContainText("javascript:window.__pwned = 'json-link'");
    } else if (kind === 'terminal') {
      // Colour codes become styles, the OSC 8 hyperlink is dropped (never a link), markup stays text.
      await expect(observation).toContainText(
        `red <script>window.__pwned = "ansi"</script> then osc link <img src=x onerror="window.__pwned = 'ansi-img'">`,
      );
    } else if (kind === 'html') {
      // A whole HTML document renders only inside a sandboxed iframe with no scripts.
      const frame = observation.locator('iframe');
      await expect(frame).toHaveAttribute('sandbox', '');
      expect(await frame.getAttribute('srcdoc')).toContain(step.observation);
    } else {
      await expect(observation).toContainText(step.observation);
    }
    await expectNoInjectedMarkup(page);
  }
  // Every renderer an importer can choose met a payload.
  expect([...kinds].toSorted()).toEqual(['error', 'html', 'json', 'terminal', 'text']);
  await expect(page.getByTestId('step-action')).toContainText(
    '[open](javascript:window.__pwned=1)',
  );

  expect(await pwnedFlags(page)).toEqual([undefined]);
  expect(watch.foreignRequests()).toEqual([]);
  expect(watch.dialogs).toEqual([]);
  // The HTML document's payloads are refused by the browser (sandbox, CSP); nothing else may log.
  expect(watch.consoleErrors.filter((message) => !BROWSER_REFUSALS.test(message))).toEqual([]);
  expect(watch.pageErrors).toEqual([]);
});

test('HTML observations render only in a script-less sandboxed iframe', async ({
  page,
  context,
}) => {
  // Seven hostile documents go straight into a store of their own, served by a second server, so
  // every payload meets the iframe renderer without an import in between.
  const server = await startSeededServer();
  try {
    const watch = watchPage(context, page, new URL(server.url).origin);
    // Its own store: the link its `serve` would print makes this browser its owner.
    await page.goto(localOwnerLink(server.trajectoryUrl, e2eToken()));
    const total = HOSTILE_HTML.length;
    for (const [position, content] of HOSTILE_HTML.entries()) {
      if (position > 0) await page.keyboard.press('j');
      await expect(page.getByTestId('step-counter')).toHaveText(`Step ${position + 1} / ${total}`);
      const observation = page.getByTestId('observation');
      await expect(observation).toHaveAttribute('data-kind', 'html');
      const frame = observation.locator('iframe.html-frame');
      await expect(frame).toHaveAttribute('sandbox', '');
      await expect(frame).toHaveAttribute('srcdoc', new RegExp(`${escapeRegExp(content)}$`));
      // The source view shows the very same markup as text.
      await observation.getByRole('button', { name: 'Source' }).click();
      await expect(observation.locator('pre')).toHaveText(content);
      await observation.getByRole('button', { name: 'Rendered (sandboxed)' }).click();
      await expect(frame).toBeVisible();
      await expectNoInjectedMarkup(page);
      // Neither the app nor the frame ran anything.
      // The app and at least the payload's frame.
      const flags = await pwnedFlags(page, 2);
      expect(flags.length).toBeGreaterThanOrEqual(2);
      expect(new Set(flags)).toEqual(new Set([undefined]));
    }
    expect(watch.foreignRequests()).toEqual([]);
    expect(watch.dialogs).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    // What the browser logs here is its own refusal to run or fetch what the sandbox and the policies
    // forbid; the payloads did try, so some of those must be there.
    expect(watch.consoleErrors.filter((message) => !BROWSER_REFUSALS.test(message))).toEqual([]);
    expect(watch.consoleErrors.length).toBeGreaterThan(0);
  } finally {
    await server.close();
  }
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
