import { createServer, type Server } from 'node:http';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { actionText } from '../packages/fidelity/src/index';
import { Action } from '../packages/schema/src/index';
import type { Store } from '../packages/db/src/index';
import { openStore } from '../packages/db/src/index';
import type { BenchWorkers } from '../packages/api/src/index';
import { finishedAirlineRun } from '../packages/api/src/testing/airline-run';
import { startServer, type RunningServer } from '../apps/server/src/start-server';
import { answerChatCompletion, listenOnLoopback } from './support/endpoint';
import { e2eToken } from './support/token';

const PASSWORD = 'labeling journey pw';

const FACTS_V1 = 'Is every value that the history or the action fixes reproduced exactly?';
const FACTS_V2 =
  'STRICT check that every id, number and echoed string matches the history exactly.';

/** default-tool with a second rule (short answers) and the facts criterion worded `facts`. */
function ruleSetJson(facts: string): string {
  return JSON.stringify({
    name: 'default-tool',
    rules: [
      { id: 'content', type: 'content', weight: 1 },
      { id: 'short', type: 'pattern', pattern: '^[\\s\\S]{0,40}$', weight: 1 },
    ],
    criteria: [
      {
        id: 'format',
        text: 'Is the output in the form the tool API gives?',
        category: 'essential',
        scale: { min: 1, max: 5 },
      },
      { id: 'facts', text: facts, category: 'essential', scale: { min: 1, max: 5 } },
      {
        id: 'consistency',
        text: 'Does it agree with earlier steps?',
        category: 'important',
        scale: { min: 1, max: 5 },
      },
      {
        id: 'realism',
        text: 'Is unseen content plausible?',
        category: 'optional',
        scale: { min: 1, max: 5 },
      },
      {
        id: 'invented-outcome',
        text: 'Does it invent a success or failure?',
        category: 'pitfall',
        scale: { min: 0, max: 1 },
      },
    ],
    combine: { rules: 1, criteria: 0 },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A server of its own: accounts must exist for login, and they would end other specs' owner sessions. */
let store: Store;
let workers: BenchWorkers;
let server: RunningServer;
let queueId: string;
let runId = '';
let judge: Server;
let judgeUrl: string;
// The humans' consensus on `facts` by the action text the judge sees (filled after grading).
const humanFacts = new Map<string, number>();

/** A judge on 127.0.0.1: agrees with the humans under the reworded criterion, reverses them before. */
async function startJudge(): Promise<void> {
  judge = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const parsed: unknown = JSON.parse(body);
      const messages =
        isRecord(parsed) && Array.isArray(parsed['messages']) ? parsed['messages'] : [];
      const prompt = messages
        .map((message: unknown) => String(isRecord(message) ? message['content'] : ''))
        .join('\n');
      const human =
        [...humanFacts].find(([action]) => prompt.includes(`Action:\n${action}\n`))?.[1] ?? 3;
      const facts = prompt.includes('STRICT') ? human : 6 - human;
      const content = `{"format": 4, "facts": ${facts}, "consistency": 3, "realism": 4, "invented-outcome": 0}`;
      answerChatCompletion(response, 'scripted', content);
    });
  });
  judgeUrl = await listenOnLoopback(judge);
}

/** A tRPC call with the program token: a mutation by POST, a query (`query: true`) by GET. */
async function program(procedure: string, input: unknown, query = false): Promise<unknown> {
  const headers = { authorization: `Bearer ${e2eToken()}`, 'content-type': 'application/json' };
  const response = query
    ? await fetch(
        `${server.url}/trpc/${procedure}?${new URLSearchParams({ input: JSON.stringify(input) })}`,
        { headers },
      )
    : await fetch(`${server.url}/trpc/${procedure}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(input),
      });
  const body: unknown = await response.json();
  if (response.status !== 200) throw new Error(`${procedure}: ${JSON.stringify(body)}`);
  const result = isRecord(body) ? body['result'] : undefined;
  return isRecord(result) ? result['data'] : undefined;
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  store = await openStore({ memory: true });
  // tau2 airline imported, benched and run with retrieval to the end: the run the queue labels.
  ({ workers, runId } = await finishedAirlineRun(store, ['retrieval']));
  server = await startServer({ store, token: e2eToken(), benchRunner: workers.runner });
  for (const [name, role] of [
    ['rhea', 'researcher'],
    ['lena', 'labeler'],
    ['lars', 'labeler'],
  ]) {
    await program('auth.users.add', { name, role, password: PASSWORD });
  }
  const queue = await program('labels.createQueue', {
    name: 'airline blind',
    runId,
    selection: { kind: 'random', count: 3, seed: 5 },
    labelsPerItem: 2,
    blind: true,
    ruleSet: { name: 'default-tool' },
  });
  await startJudge();
  queueId = String(isRecord(queue) ? queue['id'] : '');
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => (judge ? judge.close(() => resolve()) : resolve()));
  await server?.close();
  await workers?.stop();
  await store?.close();
});

async function logIn(browser: Browser, name: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  await page.goto('/');
  const form = page.getByRole('form', { name: 'Log in' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Password').fill(PASSWORD);
  const loggedIn = page.waitForResponse((response) => response.url().includes('/trpc/auth.login'));
  await form.getByRole('button', { name: 'Log in' }).click();
  expect((await loggedIn).status()).toBe(200);
  // The session cookie is set; a fresh load starts the app as this user.
  await page.goto('/labeling');
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  return page;
}

/** Grades every item the queue gives this labeler, by keyboard only; returns the items seen. */
async function gradeAll(page: Page, keys: (item: number) => number[]): Promise<string[]> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Labeling' })
    .click();
  // A blind queue does not tell its labelers whose predictions they grade.
  await expect(page.getByRole('row', { name: /airline blind/ })).toContainText('hidden (blind)');
  await page.getByRole('link', { name: 'airline blind' }).click();
  const seen: string[] = [];
  for (let n = 0; n < 3; n++) {
    const item = page.getByTestId('labeling-item');
    await expect(item).toBeVisible();
    const previous = seen.at(-1);
    if (previous !== undefined) await expect(item).not.toHaveAttribute('data-item', previous);
    const shown = (await item.getAttribute('data-item')) ?? '';
    seen.push(shown);
    await expect(page.getByTestId('criterion-format')).toHaveAttribute('data-selected', 'true');
    for (const key of keys(n)) await page.keyboard.press(String(key));
    // A digit key scores the value it names: 0 on the 0–1 pitfall is 0.
    await expect(page.getByTestId('criterion-invented-outcome')).toHaveAttribute('data-value', '0');
    await page.keyboard.press('Enter');
    // In the first frame that counts the grade, the graded item is already off the screen (keys
    // pressed before the next item arrives must not land on a submitted form).
    const graded = await page.waitForFunction(
      ([done, id]) => {
        const progress = document.querySelector('[data-testid="labeling-progress"]');
        if (!progress?.textContent?.startsWith(`${done} labeled by you`)) return null;
        return document.querySelector(`[data-item="${id}"]`) === null ? 'gone' : 'still shown';
      },
      [n + 1, shown] as const,
    );
    expect(await graded.jsonValue()).toBe('gone');
    await expect(page.getByTestId('labeling-progress')).toHaveText(
      `${n + 1} labeled by you · 3 items`,
    );
  }
  await expect(page.getByTestId('labeling-done')).toBeVisible();
  return seen;
}

/** Replaces the whole document in Monaco (insertText: no auto-closing brackets or indent). */
async function replaceDocument(page: Page, text: string): Promise<void> {
  const editor = page.getByTestId('rule-set-editor').locator('.monaco-editor').first();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function saveVersion(page: Page, message: string, version: number): Promise<void> {
  await expect(page.getByTestId('rule-set-status')).toContainText('valid');
  await page.getByLabel('Version message').fill(message);
  // The button names where the save goes: the draft's own name and the next version.
  await page.getByRole('button', { name: `Save as default-tool v${version}` }).click();
  await expect(page.getByTestId('saved-version')).toHaveText(`Saved default-tool v${version}`);
}

async function rejudge(page: Page, version: number): Promise<void> {
  const form = page.getByRole('form', { name: 'Re-judge' });
  await form.getByLabel('Re-judge rule set').selectOption('default-tool');
  await form.getByLabel('Re-judge version').selectOption(String(version));
  await form.getByLabel('Judge endpoint').fill(`openai:${judgeUrl}#scripted`);
  await form.getByRole('button', { name: 'Re-judge' }).click();
  // The scripted judge reports no token usage; the status says so rather than 0 tokens.
  await expect(page.getByTestId('rejudge-status')).toHaveText(
    `default-tool@v${version}: done 3/3 · judge no token usage reported`,
  );
}

test('a rubric edit in Monaco, blind keyboard grading by two labelers, agreement, and the re-judge delta', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  // 1. The researcher edits the rule set in Monaco: the preview moves, then the draft is saved.
  const rhea = await logIn(browser, 'rhea');
  await rhea
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Rule sets' })
    .click();
  await rhea.getByLabel('Rule set', { exact: true }).selectOption('default-tool');
  await expect(rhea.getByTestId('rule-set-editor').locator('.monaco-editor')).toBeVisible();
  const deltas = rhea.getByTestId('preview-delta');
  await expect(deltas.first()).toHaveText('0.0');
  await replaceDocument(rhea, ruleSetJson(FACTS_V1));
  await expect(rhea.getByTestId('rule-set-editor')).toHaveAttribute('data-language', 'json');
  // The extra rule changes the hybrid score of the sampled items against the built-in version.
  await expect(deltas.filter({ hasNotText: /^0\.0$/ }).first()).toBeVisible();
  await saveVersion(rhea, 'a rule for short answers', 1);

  // 1b. The saved version scores every prediction of the run and becomes one of its metrics.
  const scoring = rhea.getByRole('form', { name: 'Score a run' });
  await expect(scoring.getByLabel('Version to score with')).toHaveValue('1');
  await scoring.getByRole('button', { name: 'Score every prediction' }).click();
  await expect(rhea.getByTestId('score-run-status')).toHaveText(
    /^default-tool@v1: done (\d+)\/\1$/,
  );
  await scoring.getByRole('link', { name: /^Open default-tool@v1 on run/ }).click();
  await expect(rhea.getByTestId('leaderboard')).toHaveAttribute(
    'data-score',
    'rule:default-tool@v1',
  );
  await expect(rhea.getByTestId('metric-definition')).toHaveAttribute(
    'title',
    'Rule set default-tool, version 1: its score of each prediction, from its rules (judge criteria left out).',
  );
  // Back on the rule set after a reload, the form still knows that version 1 scored this run and
  // links to it (walk 43: it offered only "Score every prediction" again).
  await rhea.goBack();
  await rhea.reload();
  await rhea.getByLabel('Rule set', { exact: true }).selectOption('default-tool');
  await expect(rhea.getByTestId('score-run-scored')).toHaveText(
    `default-tool@v1 already scored run ${runId}: open it on the leaderboard`,
  );
  await expect(rhea.getByTestId('score-run-status')).toHaveCount(0);
  await rhea
    .getByTestId('score-run-scored')
    .getByRole('link', { name: 'open it on the leaderboard' })
    .click();
  await expect(rhea.getByTestId('leaderboard')).toHaveAttribute(
    'data-score',
    'rule:default-tool@v1',
  );
  const board = await program('bench.leaderboard', { runId, bootstrap: 0 }, true);
  const cells = isRecord(board) && Array.isArray(board['cells']) ? board['cells'] : [];
  const overallOf = (metric: string) =>
    cells.find(
      (cell: unknown) =>
        isRecord(cell) &&
        cell['sim'] === 'retrieval' &&
        cell['task'] === 'overall' &&
        cell['metric'] === metric,
    );
  const version = overallOf('default-tool@v1');
  const content = overallOf('content');
  if (!isRecord(version) || !isRecord(content)) throw new Error('no overall cells');
  // As many items as the run's own content score, and the server's mean as the page shows it.
  expect(version['n']).toBe(content['n']);
  const retrieval = rhea.locator(
    '[data-testid="leaderboard-cell"][data-sim="retrieval"][data-task="overall"]',
  );
  await expect(retrieval.getByTestId('cell-n')).toHaveText(`n=${String(content['n'])}`);
  await expect(retrieval.getByTestId('cell-mean')).toHaveText(Number(version['mean']).toFixed(1));

  // 2. Two labelers grade the same three items, blind, by keyboard only.
  const lena = await logIn(browser, 'lena');
  await lena.goto(`/labeling/${queueId}`);
  await expect(lena.getByTestId('blind-badge')).toBeVisible();
  await lena.keyboard.press('?');
  await expect(lena.getByTestId('labeling-help')).toContainText('score the selected criterion');
  await lena.keyboard.press('?');
  // A label half entered survives a reload (the lease resumes the same item).
  const halfway = await lena.getByTestId('labeling-item').getAttribute('data-item');
  await lena.keyboard.press('5');
  await lena.getByLabel('Comment (c)').fill('checked the order id');
  await lena.reload();
  await expect(lena.getByTestId('labeling-item')).toHaveAttribute('data-item', halfway ?? '');
  await expect(lena.getByTestId('draft-restored')).toBeVisible();
  await expect(lena.getByTestId('criterion-format')).toHaveAttribute('data-value', '5');
  await expect(lena.getByLabel('Comment (c)')).toHaveValue('checked the order id');
  // Closing the page keeps the lease too: another labeler who opens the queue meanwhile gets
  // another item, and hands it back by going to another page of the app.
  await lena.goto('about:blank');
  const lars = await logIn(browser, 'lars');
  await lars.goto(`/labeling/${queueId}`);
  await expect(lars.getByTestId('labeling-item')).toBeVisible();
  await expect(lars.getByTestId('labeling-item')).not.toHaveAttribute('data-item', halfway ?? '');
  const handedBack = lars.waitForResponse((response) =>
    response.url().includes('/trpc/labels.release'),
  );
  await lars
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Labeling' })
    .click();
  expect((await handedBack).status()).toBe(200);
  await lena.goto(`/labeling/${queueId}`);
  await expect(lena.getByTestId('labeling-item')).toHaveAttribute('data-item', halfway ?? '');
  await expect(lena.getByTestId('criterion-format')).toHaveAttribute('data-value', '5');
  // Enter with criteria left unscored asks first, naming them, and the item stays.
  await lena.keyboard.press('Enter');
  await expect(
    lena.getByText('4 criteria not scored (facts, consistency, realism, invented-outcome)'),
  ).toBeVisible();
  await expect(lena.getByTestId('labeling-item')).toHaveAttribute('data-item', halfway ?? '');
  const first = await gradeAll(lena, (n) => [5, n + 2, 4, 5, 0]);
  // Submitted drafts leave nothing behind in the browser.
  expect(
    await lena.evaluate(
      () =>
        Object.keys(localStorage).filter((key) => key.startsWith('terrarium.label-draft')).length,
    ),
  ).toBe(0);

  const second = await gradeAll(lars, (n) => [5, n + 2, 3, 5, 0]);
  expect(second.toSorted()).toEqual(first.toSorted());
  await expect(lars.getByTestId('labeling-scores')).toHaveCount(0);
  await expect(lars.getByTestId('labeling-other-labels')).toHaveCount(0);
  await lars.keyboard.press('ArrowLeft');
  await expect(lars.getByTestId('criterion-consistency')).toHaveAttribute('data-value', '3');

  // 3. Agreement appears for the researcher.
  await rhea.goto(`/labeling/${queueId}/agreement`);
  await expect(rhea.getByTestId('agreement-summary')).toContainText('6 labels');
  await expect(rhea.getByTestId('agreement-summary')).toContainText(
    'labels on 3 items · 2 labelers',
  );
  await expect(rhea.getByTestId('alpha-facts')).toContainText('1.00');
  await expect(rhea.getByTestId('few-items')).toContainText(
    'On 3 items the 95% intervals are rough',
  );
  await expect(rhea.getByRole('region', { name: 'Human vs rules' })).toContainText('Spearman');
  // κ on 3 items comes with its interval, so it does not read like a κ on 300.
  await expect(
    rhea.getByRole('region', { name: 'Human vs rules' }).locator('caption').first(),
  ).toHaveText(
    /: κ (-?\d\.\d\d|—) (\[-?\d\.\d\d, -?\d\.\d\d\]|no interval) \(quadratic .*\), 3 items, 95% bootstrap/,
  );

  // 4. The loop: judge with v1, reword the facts criterion (v2), re-judge, read the delta.
  const labels = await program('labels.labels', { queueId }, true);
  const items = await program('bench.items', { name: 'airline', offset: 0, limit: 500 }, true);
  const rows = isRecord(items) && Array.isArray(items['rows']) ? items['rows'] : [];
  for (const label of Array.isArray(labels) ? labels : []) {
    if (!isRecord(label) || !isRecord(label['scores'])) continue;
    const row: unknown = rows.find(
      (entry: unknown) => isRecord(entry) && entry['id'] === label['itemId'],
    );
    const facts = label['scores']['facts'];
    if (isRecord(row) && typeof facts === 'number') {
      humanFacts.set(actionText(Action.parse(row['action'])), facts);
    }
  }
  expect(humanFacts.size).toBe(3);
  await rejudge(rhea, 1);
  await rhea.goto('/rule-sets');
  await rhea.getByLabel('Rule set', { exact: true }).selectOption('default-tool');
  await expect(rhea.getByTestId('rule-set-editor').locator('.monaco-editor')).toBeVisible();
  await replaceDocument(rhea, ruleSetJson(FACTS_V2));
  await saveVersion(rhea, 'facts: stricter wording', 2);
  await rhea.getByLabel('From version').selectOption('1');
  await rhea.getByLabel('To version').selectOption('2');
  await expect(rhea.getByTestId('rule-set-diff')).toContainText('STRICT');

  await rhea.goto(`/labeling/${queueId}/agreement`);
  await rejudge(rhea, 2);
  await rhea
    .getByRole('region', { name: 'Judge versions' })
    .getByLabel('Before')
    .selectOption('default-tool@v1');
  await expect(rhea.getByTestId('judge-after')).toHaveValue('default-tool@v2');
  // The humans' facts were 2, 3, 4: v1 said 4, 3, 2 (ρ −1), v2 agrees (ρ +1).
  await expect(rhea.getByTestId('delta-value-facts')).toHaveText('+2.00');
  // The queue took default-tool's criteria: each pairs with its judge, none is left out.
  await expect(rhea.getByTestId('criteria-not-compared')).toHaveCount(0);
  await expect(rhea.getByTestId('flips')).toContainText('2 items where the judge moved');
});
