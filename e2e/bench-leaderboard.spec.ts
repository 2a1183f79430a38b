import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { TAU2_RETAIL, importThroughApi, startRunThroughApi, trpcMutation } from './support/api';
import { answerChatCompletion, listenOnLoopback } from './support/endpoint';

const DATASET = 'bench-journey-retail';
const BENCH = 'tau2-retail-agentworld';
// `pnpm terrarium bench build --name B --dataset D --sampling agentworld --json` on the same file:
// 40 simulations, the first, three evenly spaced middle and the last transition of each, deduped.
const ITEMS = 194;

function leaderboardCell(page: Page, sim: string, task: string) {
  return page.locator(`[data-testid="leaderboard-cell"][data-sim="${sim}"][data-task="${task}"]`);
}

function scoreOf(text: string | null): number {
  const value = Number(text);
  if (text === null || !Number.isFinite(value)) throw new Error(`not a score: ${String(text)}`);
  return value;
}

/** A results line's simulator and `rule:exact-match` score (0-1, null where it does not apply). */
function exactMatchOf(row: unknown): { sim: unknown; value: number | null } {
  const sim: unknown = typeof row === 'object' && row !== null ? Reflect.get(row, 'sim') : null;
  const scores: unknown =
    typeof row === 'object' && row !== null ? Reflect.get(row, 'scores') : null;
  const value: unknown =
    typeof scores === 'object' && scores !== null ? Reflect.get(scores, 'rule:exact-match') : null;
  return { sim, value: typeof value === 'number' ? value : null };
}

/**
 * A 12-items-per-task bench of the retail file under `dataset`, and its card's "New run" form
 * opened on the Benches page.
 */
async function newRunForm(page: Page, request: APIRequestContext, dataset: string) {
  await importThroughApi(request, TAU2_RETAIL, dataset);
  await trpcMutation(request, 'bench.build', {
    name: dataset,
    datasets: [dataset],
    maxItemsPerTask: 12,
  });
  await page.goto('/benches');
  const card = page.locator(`[data-testid="bench"][data-bench="${dataset}"]`);
  await card.getByRole('button', { name: 'New run' }).click();
  return { card, runForm: card.getByRole('form', { name: `Run ${dataset} v1` }) };
}

test('a bench built from real trajectories ranks replay above retrieval, down to the worst step in Compare', async ({
  page,
  request,
}) => {
  // Two simulators over every item, scored, on a 2-core machine.
  test.setTimeout(240_000);
  const report = await importThroughApi(request, TAU2_RETAIL, DATASET);
  expect(report.trajectories).toBe(40);

  await page.goto('/');
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Benches' })
    .click();
  await expect(page).toHaveURL(/\/benches$/);
  await expect(page.getByRole('heading', { name: 'Benches', level: 1 })).toBeVisible();

  // Build: the form opens by itself on a store without benches.
  const newBench = page.getByTestId('new-bench');
  // Shown once the bench list has loaded, so the form's open state is settled.
  await expect(newBench).toBeVisible();
  if ((await newBench.getByRole('form', { name: 'Build bench' }).count()) === 0) {
    await newBench.getByRole('button', { name: 'New bench' }).click();
  }
  const buildForm = newBench.getByRole('form', { name: 'Build bench' });
  await buildForm.getByLabel('Bench name').fill(BENCH);
  await buildForm.getByRole('checkbox', { name: new RegExp(`^${DATASET} `) }).check();
  await expect(buildForm.getByLabel('Sampling')).toHaveValue('agentworld');
  await buildForm.getByRole('button', { name: 'Build bench' }).click();
  await expect(page.getByTestId('build-result')).toHaveText(`Built ${BENCH} v1: ${ITEMS} items`);
  const card = page.locator(`[data-testid="bench"][data-bench="${BENCH}"]`);
  await expect(card.getByTestId('bench-items')).toHaveText(String(ITEMS));
  await expect(card.getByTestId('bench-tasks')).toContainText('retail');
  await expect(card.getByTestId('bench-run-count')).toHaveText('0');

  // Run replay and retrieval; the page follows the run's progress as it is streamed.
  await card.getByRole('button', { name: 'New run' }).click();
  const runForm = card.getByRole('form', { name: `Run ${BENCH} v1` });
  await runForm.getByRole('checkbox', { name: /^Replay/ }).check();
  await runForm.getByRole('checkbox', { name: /^Retrieval/ }).check();
  await runForm.getByRole('button', { name: 'Start run' }).click();
  await expect(page).toHaveURL(/\/bench-runs\/[^/?]+$/);
  const runUrl = page.url();
  // The page is never reloaded: only the watchRun stream can bring the final status.
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 180_000 });
  await expect(page.getByTestId('run-counts')).toHaveText(
    `${ITEMS * 2} done · 0 failed · ${ITEMS * 2} total`,
  );
  await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);

  // Default score: the content-class rule score. Then exact match.
  await expect(page.getByLabel('Score', { exact: true })).toHaveValue('rule:content');
  await page.getByLabel('Score', { exact: true }).selectOption('rule:exact-match');
  await expect(page).toHaveURL(/[?&]score=rule%3Aexact-match/);
  await expect(page.getByTestId('leaderboard')).toHaveAttribute('data-score', 'rule:exact-match');
  await expect(leaderboardCell(page, 'replay', 'overall').getByTestId('cell-mean')).toHaveText(
    '100.0',
  );
  await expect(leaderboardCell(page, 'replay', 'overall').getByTestId('cell-n')).toHaveText(
    `n=${ITEMS}`,
  );
  const retrievalOverall = leaderboardCell(page, 'retrieval', 'overall');
  const retrievalMean = scoreOf(await retrievalOverall.getByTestId('cell-mean').textContent());
  expect(retrievalMean).toBeLessThan(100);
  await expect(page.getByTestId('score-charts')).toBeVisible();

  // The run's results download: a line per item and simulator, whose mean is the cell's.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download results (JSONL)' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^terrarium-run-\d+-results\.jsonl$/);
  // By a one-time link: what the browser's download list keeps opens nothing (walk 42).
  expect(new URL(download.url()).search).toMatch(/^\?run=\d+&download_code=[\w-]{32}$/);
  const results = (await readFile(await download.path(), 'utf8')).trimEnd().split('\n');
  expect(results).toHaveLength(ITEMS * 2);
  const exact = results
    .map((line) => exactMatchOf(JSON.parse(line)))
    .filter((row) => row.sim === 'retrieval' && row.value !== null)
    .map((row) => row.value ?? 0);
  expect(exact).toHaveLength(ITEMS);
  const exactMean = (exact.reduce((sum, value) => sum + value, 0) / exact.length) * 100;
  expect(exactMean.toFixed(1)).toBe(retrievalMean.toFixed(1));

  // A task's cell lists that task's items: no Task column repeating one value.
  await leaderboardCell(page, 'retrieval', 'tau2-bench/retail').click();
  const drilldown = page.getByTestId('drilldown');
  await expect(drilldown).toContainText(`${ITEMS} items`);
  await expect(drilldown.getByRole('columnheader', { name: 'Action' })).toBeVisible();
  await expect(drilldown.getByRole('columnheader', { name: 'Task' })).toHaveCount(0);

  // Drill down: retrieval's items, worst first.
  await retrievalOverall.click();
  await expect(page).toHaveURL(/[?&]sim=retrieval&task=overall/);
  await expect(drilldown.getByRole('columnheader', { name: 'Task' })).toBeVisible();
  const rows = drilldown.getByTestId('cell-item');
  await expect(rows.first()).toBeVisible();
  const shown = (await drilldown.getByTestId('cell-item-score').allTextContents()).map(scoreOf);
  expect(shown.length).toBeGreaterThan(5);
  expect(shown).toEqual(shown.toSorted((a, b) => a - b));
  // Exact match is 0 or 100 per item: the mean says how many retrieval got right.
  expect(shown[0]).toBe(0);

  // j/k move through the list; the selected item is in the URL.
  await rows.first().click();
  await expect(rows.first()).toHaveAttribute('aria-selected', 'true');
  const firstItem = await rows.first().getAttribute('data-item');
  await expect(page.getByTestId('item-detail')).toHaveAttribute('data-item', firstItem ?? '');
  await page.keyboard.press('j');
  await expect(rows.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('k');
  await expect(rows.first()).toHaveAttribute('aria-selected', 'true');
  await expect(page).toHaveURL(new RegExp(`[?&]item=${firstItem ?? ''}`));
  const detail = page.getByTestId('item-detail');
  await expect(detail.locator('[data-score="rule:exact-match"]')).toHaveText('0.0');
  await expect(detail.getByRole('region', { name: 'Real observation' })).toBeVisible();
  await expect(detail.getByRole('region', { name: 'Predicted observation' })).toBeVisible();
  // Re-run in bench: the run's own code path gives the stored prediction and score again.
  await detail.getByRole('button', { name: 'Re-run in bench' }).click();
  await expect(detail.getByTestId('item-rerun-score')).toHaveText(/^content (\S+) \(run: \1\)$/);
  const stored = detail
    .getByRole('region', { name: 'Predicted observation' })
    .locator(':scope > :not(h3)');
  const storedText = (await stored.textContent()) ?? '';
  await expect(detail.getByTestId('item-rerun-observation')).toHaveText(storedText);

  // The worst item in Compare: its trajectory, retrieval, at its step.
  await detail.getByRole('link', { name: 'Open in Compare' }).click();
  await expect(page).toHaveURL(
    /\/datasets\/[^/]+\/trajectories\/[^/]+\/compare\?sims=retrieval&step=\d+&bench=[^&]+&item=[^&]+$/,
  );
  // The bench item in Compare: predicted through the run's code path, the drill-down's answer.
  const benchItem = page.getByRole('region', { name: 'Bench item' });
  await expect(benchItem).toHaveAttribute('data-item', firstItem ?? '');
  // The page says that its own table may differ from the run's prediction, and why.
  await expect(page.getByTestId('compare-bench-note')).toContainText(
    `Opened from an item of bench run ${new URL(page.url()).searchParams.get('bench') ?? ''}.`,
  );
  await benchItem.getByRole('button', { name: 'Re-run in bench' }).click();
  await expect(benchItem.getByTestId('item-rerun-score')).toHaveText(/^content (\S+) \(run: \1\)$/);
  await expect(benchItem.getByTestId('item-rerun-observation')).toHaveText(storedText);
  await expect(page.getByTestId('sim-prediction')).toHaveCount(1);
  await expect(page.locator('[data-testid="sim-prediction"][data-sim="retrieval"]')).toBeVisible();
  const step = new URL(page.url()).searchParams.get('step');
  await expect(page.locator(`[data-testid="compare-step"][aria-selected="true"]`)).toHaveAttribute(
    'data-step',
    step ?? '',
  );

  // Back returns to the drill-down with the item still selected.
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`[?&]item=${firstItem ?? ''}`));
  await expect(page.getByTestId('item-detail')).toHaveAttribute('data-item', firstItem ?? '');
  expect(page.url().startsWith(runUrl)).toBe(true);

  // A second, retrieval-only run of the same bench, compared with the first: nothing moved.
  const runId = new URL(runUrl).pathname.split('/').pop() ?? '';
  await page.getByRole('link', { name: 'Compare with another run…' }).click();
  await expect(page).toHaveURL(new RegExp(`/bench-runs/${runId}/compare`));
  await expect(
    page.getByText('This bench version has no other run to compare with.'),
  ).toBeVisible();
  // A link to a run that is not another run of this bench says so, instead of loading for ever.
  await page.goto(`/bench-runs/${runId}/compare?with=999999`);
  await expect(page.getByTestId('other-run-missing')).toContainText(
    'Run 999999 is not another run of',
  );
  await expect(page.getByText('Loading the comparison')).toHaveCount(0);
  await page.getByRole('link', { name: 'Benches' }).first().click();
  const benchCard = page.locator(`[data-testid="bench"][data-bench="${BENCH}"]`);
  await expect(benchCard.getByTestId('bench-run-count')).toHaveText('1');
  // A run started elsewhere (here as the CLI starts one) shows on the open page, no reload.
  const secondRunId = await startRunThroughApi(request, BENCH, ['retrieval']);
  expect(secondRunId).not.toBe(runId);
  await expect(benchCard.getByTestId('bench-run-count')).toHaveText('2');
  await benchCard.getByRole('link', { name: secondRunId, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/bench-runs/${secondRunId}$`));
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 180_000 });
  await expect(page.getByTestId('run-counts')).toHaveText(
    `${ITEMS} done · 0 failed · ${ITEMS} total`,
  );

  // The bench has one other run now: the page compares with it without being asked.
  await page.goto(`/bench-runs/${runId}/compare?score=rule%3Aexact-match`);
  await expect(page).toHaveURL(new RegExp(`[?&]with=${secondRunId}`));
  await expect(page.getByTestId('other-run')).toHaveValue(secondRunId);
  const deltas = page.getByTestId('delta-table');
  const retrievalRow = deltas.locator('tr[data-sim="retrieval"][data-task="overall"]');
  await expect(retrievalRow.getByTestId('delta')).toHaveText('0.0');
  await expect(retrievalRow).toHaveAttribute('data-direction', 'same');
  // The same predictions item by item: the paired difference is 0 with an interval of 0 width.
  await expect(retrievalRow.getByTestId('delta-interval')).toContainText('[0.0, 0.0]');
  await expect(retrievalRow.getByTestId('delta-significance')).toHaveAttribute(
    'data-significance',
    'not significant',
  );
  // Replay was not in the second run: no after, no delta, and the row says so.
  const replayRow = deltas.locator('tr[data-sim="replay"][data-task="overall"]');
  await expect(replayRow.getByTestId('delta')).toHaveText('—');
  await expect(replayRow.getByTestId('delta-significance')).toHaveText('not in the newer run');
  await expect(page.getByTestId('most-improved')).toContainText('None.');
  await expect(page.getByTestId('most-regressed')).toContainText('None.');

  // The second run deleted from its own page, after asking: the bench keeps the first.
  await page.goto(`/bench-runs/${secondRunId}`);
  await expect(page.getByTestId('run-status')).toHaveText('done');
  await page.getByTestId('run-progress').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('group', { name: `Delete run run ${secondRunId}` })).toContainText(
    `Delete it with its ${ITEMS} predictions and their scores? The bench stays.`,
  );
  await page.getByRole('button', { name: `Delete run ${secondRunId}` }).click();
  await expect(page).toHaveURL(/\/benches$/);
  await expect(benchCard.getByTestId('bench-run-count')).toHaveText('1');
});

test('a run retried from elsewhere is followed by its open page, no reload', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  // An endpoint that refuses every request until told to answer (a 400 is not retried).
  let answering = false;
  const endpoint = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      if (!answering) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'not yet' } }));
        return;
      }
      answerChatCompletion(response, 'later', '{}');
    });
  });
  const endpointUrl = await listenOnLoopback(endpoint);
  try {
    const dataset = 'retry-elsewhere';
    await importThroughApi(request, TAU2_RETAIL, dataset);
    await trpcMutation(request, 'bench.build', {
      name: dataset,
      datasets: [dataset],
      maxItemsPerTask: 12,
    });
    const runId = await startRunThroughApi(request, dataset, [`openai:${endpointUrl}#later`]);
    await page.goto(`/bench-runs/${runId}`);
    await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 120_000 });
    await expect(page.getByTestId('run-counts')).toHaveText('0 done · 12 failed · 12 total');
    await expect(page.getByRole('button', { name: 'Retry 12 failed units' })).toBeVisible();

    // The endpoint answers now, and the failed units are retried as the CLI's `bench retry` does.
    answering = true;
    await trpcMutation(request, 'bench.retryFailed', { runId });
    // The page was never reloaded: it reads a finished run again and follows the retry.
    await expect(page.getByTestId('run-counts')).toHaveText('12 done · 0 failed · 12 total', {
      timeout: 60_000,
    });
    await expect(page.getByTestId('run-status')).toHaveText('done');
    await expect(page.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
    await expect(
      page.locator('[data-testid="leaderboard-cell"][data-task="overall"]').getByTestId('cell-n'),
    ).toHaveText('n=12');
  } finally {
    await new Promise<void>((resolve) => {
      endpoint.close(() => resolve());
      endpoint.closeAllConnections();
    });
  }
});

test('verdicts a judge refused are asked for again from the run page, on the stored predictions', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  // A judge that refuses every request until told to answer (a 400 is not retried), then gives
  // a verdict that reports one prompt and one completion token; past `holdAfter` requests it
  // holds its answers until released.
  let answering = false;
  let asked = 0;
  let holdAfter = Infinity;
  const held: (() => void)[] = [];
  const judge = createServer((incoming, response) => {
    const answer = () =>
      answerChatCompletion(
        response,
        'judge',
        '{"scores": {"format": 5, "factuality": 2, "consistency": 4, "realism": 3, "quality": 3}}',
        { prompt_tokens: 1, completion_tokens: 1 },
      );
    incoming.resume();
    incoming.on('end', () => {
      asked++;
      if (!answering) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'the judge is busy' } }));
        return;
      }
      if (asked > holdAfter) held.push(answer);
      else answer();
    });
  });
  const judgeUrl = await listenOnLoopback(judge);
  try {
    // Started from the bench's card: a judge asked twice per item at temperature 0.5.
    const { card, runForm } = await newRunForm(page, request, 'judge-again');
    await runForm.getByRole('checkbox', { name: /^Replay/ }).check();
    await runForm.getByLabel('Judge spec').fill(`openai:${judgeUrl}#judge`);
    await expect(runForm.getByLabel('Judge mode')).toHaveValue('score');
    await runForm.getByLabel('Judgings per item').fill('2');
    await runForm.getByLabel('Judge temperature').fill('0.5');
    await runForm.getByRole('button', { name: 'Start run' }).click();
    await expect(page).toHaveURL(/\/bench-runs\/[^/?]+$/);
    await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 120_000 });
    await expect(page.getByTestId('run-settings')).toHaveText(
      `open loop · test split · judge openai:${judgeUrl}#judge · score · k=2 · temperature 0.5`,
    );
    // Every prediction was recorded; only the judge's verdicts are missing, and the page says so.
    await expect(page.getByTestId('run-counts')).toHaveText('12 done · 0 failed · 12 total');
    await expect(page.locator('[data-judge-metric="overall"]')).toContainText(
      'the judge gave no verdict on 12 of 12 items',
    );
    expect(asked).toBe(24);

    answering = true;
    holdAfter = asked + 18;
    await page.getByRole('button', { name: 'Ask the judge again (12 verdicts missing)' }).click();
    // While the judge is asked, another tab shows the asking, with the count still missing, and
    // offers no second one; so does this tab.
    await expect.poll(() => asked, { timeout: 30_000 }).toBeGreaterThan(holdAfter);
    const other = await page.context().newPage();
    await other.goto(page.url());
    const asking = /^Asking the judge… \((\d+) verdicts? missing\)$/;
    for (const tab of [other, page]) {
      await expect(tab.getByRole('button', { name: asking })).toBeDisabled({ timeout: 10_000 });
    }
    const missing = Number(
      asking.exec((await other.getByRole('button', { name: asking }).textContent()) ?? '')?.[1],
    );
    expect(missing).toBeGreaterThan(0);
    expect(missing).toBeLessThan(12);
    // Stopped from the other tab: the verdicts given stay, the rest is missing again, and its
    // requests held in flight are dropped unanswered.
    await other.getByRole('button', { name: 'Stop asking' }).click();
    const askAgain = `Ask the judge again (${missing} verdicts missing)`;
    for (const tab of [other, page]) {
      await expect(tab.getByRole('button', { name: askAgain })).toBeEnabled({ timeout: 10_000 });
    }
    held.splice(0);
    holdAfter = Infinity;
    const beforeAgain = asked;
    await page.getByRole('button', { name: askAgain }).click();
    // The 12 stored predictions are judged, not predicted again; the note and the button go.
    await expect(page.locator('[data-judge-metric="overall"]')).toHaveCount(0, {
      timeout: 60_000,
    });
    await expect(page.getByRole('button', { name: /^Ask the judge again|^Asking/ })).toHaveCount(0);
    await expect(other.getByRole('button', { name: /^Ask the judge again|^Asking/ })).toHaveCount(
      0,
    );
    // Only what was still missing was asked for, twice each (k = 2).
    expect(asked - beforeAgain).toBe(2 * missing);
    await expect(
      page.locator('[data-testid="leaderboard-cell"][data-task="overall"]').getByTestId('cell-n'),
    ).toHaveText('n=12');
    // Answered calls only: the 18 before the stop and those after; the dropped ones spent nothing known.
    const answered = 18 + 2 * missing;
    await expect(page.getByTestId('run-usage')).toHaveText(
      `0 in / 0 out simulator tokens · $0.00 · judge ${answered} in / ${answered} out tokens · cost not priced`,
    );
    // The Benches list says the same run's judge and cost.
    await page.goto('/benches');
    const row = card.locator('[data-testid="bench-runs"] tr').filter({ hasText: 'score · k=2' });
    await expect(row.getByTestId('run-cost')).toHaveText(
      'simulators $0.00 · judge cost not priced',
    );
  } finally {
    for (const answer of held.splice(0)) answer();
    await new Promise<void>((resolve) => {
      judge.close(() => resolve());
      judge.closeAllConnections();
    });
  }
});

test('a pairwise judge started from the form judges the pairs from the run page once the run has ended', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  // Always prefers response A (the first simulator's prediction), one token in and out a call.
  let asked = 0;
  const judge = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      asked++;
      answerChatCompletion(response, 'pair', '{"closer": "A", "reasoning": "A keeps the ids"}', {
        prompt_tokens: 1,
        completion_tokens: 1,
      });
    });
  });
  const judgeUrl = await listenOnLoopback(judge);
  try {
    const { runForm } = await newRunForm(page, request, 'judge-pairs');
    await runForm.getByRole('checkbox', { name: /^Replay/ }).check();
    await runForm.getByLabel('Judge spec').fill(`openai:${judgeUrl}#pair`);
    // Before anything is asked, the form says what a k would not do (as `bench run` does).
    await runForm.getByLabel('Judgings per item').fill('3');
    await expect(runForm.getByTestId('judge-repeats-note')).toHaveText(
      '3 judgings at temperature 0 send the judge the same prompt 3 times: a server that decodes greedily answers alike, so the spread reads 0 at 3 times the cost; raise the temperature for judgings that can differ.',
    );
    await runForm.getByLabel('Judge mode').selectOption('pairwise');
    await expect(runForm.getByTestId('judge-repeats-note')).toHaveText(
      'With an odd k (3), each item is asked one way round 2 times and the other 1: an even k balances the sides within every item.',
    );
    await runForm.getByLabel('Judgings per item').fill('1');
    await expect(runForm.getByTestId('judge-repeats-note')).toHaveCount(0);
    // One simulator is not a pair: the form says so and starts nothing.
    await runForm.getByRole('button', { name: 'Start run' }).click();
    await expect(runForm.getByRole('alert')).toHaveText(
      'A pairwise judge compares two simulators: choose at least two.',
    );
    await runForm.getByRole('checkbox', { name: /^Retrieval/ }).check();
    await runForm.getByRole('button', { name: 'Start run' }).click();
    await expect(page).toHaveURL(/\/bench-runs\/[^/?]+$/);
    await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 120_000 });
    await expect(page.getByTestId('run-counts')).toHaveText('24 done · 0 failed · 24 total');
    // Nothing was judged during the run: the pairs wait for both predictions.
    expect(asked).toBe(0);
    await page.getByRole('button', { name: 'Judge the pairs (12 without a verdict)' }).click();
    await expect(page.getByTestId('run-usage')).toHaveText(
      '0 in / 0 out simulator tokens · $0.00 · judge 12 in / 12 out tokens · cost not priced',
      { timeout: 60_000 },
    );
    expect(asked).toBe(12);
    // Every pair has its verdict: nothing is owed, so no button (not even "Retrying…").
    await expect(page.getByRole('button', { name: /^Judge the pairs|^Retrying/ })).toHaveCount(0);
    // The judge answered A whatever A held: its even shares are its doing, and the page says so.
    await page.getByLabel('Score', { exact: true }).selectOption('judge:pairwise:retrieval');
    await expect(page.getByTestId('judge-sides')).toHaveText(
      /^The pairwise judge answered A in 12 of 12 judgings, B in 0, a tie in 0; replay was response A in \d+ of them\. .* says it prefers response A whatever it holds/,
    );
    await expect(page.getByTestId('judge-sides')).toHaveClass('note');
  } finally {
    await new Promise<void>((resolve) => {
      judge.close(() => resolve());
      judge.closeAllConnections();
    });
  }
});
