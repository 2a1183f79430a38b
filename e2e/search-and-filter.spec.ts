import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { TAU2_RETAIL, datasetIdByName, importThroughApi, sharedDataPath } from './support/api';
import { readTau2Simulations, simulationsCalling } from './support/tau2';

const DATASET = 'search-and-filter-retail';
const TOOL = 'exchange_delivered_order_items';

test('full-text search and the outcome filter give the counts the real file holds', async ({
  page,
  request,
}) => {
  const simulations = readTau2Simulations(TAU2_RETAIL);
  const calling = simulations.filter((simulation) => simulationsCalling([simulation], TOOL) === 1);
  const successes = simulations.filter((simulation) => simulation.reward === 1);
  const callingAndSucceeding = calling.filter((simulation) => simulation.reward === 1);
  // What the file says, so a wrong count below is the viewer's, not the data's.
  expect(calling).toHaveLength(9);
  expect(successes).toHaveLength(34);

  await importThroughApi(request, TAU2_RETAIL, DATASET);
  const datasetId = await datasetIdByName(request, DATASET);

  await page.goto(`/datasets/${datasetId}`);
  const total = page.getByTestId('trajectory-total');
  await expect(total).toHaveText('40 trajectories');

  await page.getByRole('searchbox', { name: 'Search trajectories' }).fill(TOOL);
  await expect(page).toHaveURL(new RegExp(`[?&]q=${TOOL}`));
  await expect(total).toHaveText(`${calling.length} trajectories`);
  await expect(page.getByTestId('trajectory-order')).toHaveText(/^best matches first/);
  // What search does not read is said where its results are.
  await expect(page.getByTestId('search-scope')).toContainText(
    'of a longer one its first 4,096 and last 1,024',
  );
  const rows = page.getByTestId('trajectory-row');
  await expect(rows).toHaveCount(calling.length);
  const shownNames = await rows.getByTestId('trajectory-name').allTextContents();
  expect(shownNames.toSorted()).toEqual(
    calling.map((simulation) => simulation.listName).toSorted(),
  );
  // Each row shows where the search matched, the tool's name marked, and opens at that step.
  const snippets = rows.getByTestId('search-snippet');
  await expect(snippets).toHaveCount(calling.length);
  for (const mark of await snippets.locator('mark').allTextContents()) expect(mark).toBe(TOOL);
  await rows.first().getByTestId('trajectory-name').click();
  await expect(page).not.toHaveURL(/[?&]step=1$/);
  await expect(page.getByTestId('step-action')).toContainText(TOOL);
  await page.goBack();

  // Search and filter combine.
  await page.getByLabel('Outcome').selectOption('success');
  await expect(page).toHaveURL(/[?&]outcome=success/);
  await expect(total).toHaveText(`${callingAndSucceeding.length} trajectories`);
  await expect(rows).toHaveCount(callingAndSucceeding.length);

  // The filter alone: every rewarded simulation, in import order (nothing to rank by).
  await page.getByRole('searchbox', { name: 'Search trajectories' }).fill('');
  await expect(total).toHaveText(`${successes.length} trajectories`);
  await expect(page.getByTestId('trajectory-order')).toHaveCount(0);
  await expect(page.getByTestId('search-scope')).toHaveCount(0);
  await page.getByLabel('Outcome').selectOption('failure');
  await expect(total).toHaveText(`${simulations.length - successes.length} trajectories`);

  // The URL carries the query: reopening it shows the same list.
  await page.goto(`/datasets/${datasetId}?q=${TOOL}&outcome=success`);
  await expect(page.getByRole('searchbox', { name: 'Search trajectories' })).toHaveValue(TOOL);
  await expect(total).toHaveText(`${callingAndSucceeding.length} trajectories`);
});

test('a search result opens at its step with the matched word shown and marked, not in a closed node', async ({
  page,
  request,
}) => {
  // walk 40: "thermostat" opened the right step, with the word inside a collapsed JSON node.
  const WORD = 'thermostat';
  const holding = readTau2Simulations(TAU2_RETAIL).filter((simulation) =>
    JSON.stringify(simulation.messages).toLowerCase().includes(WORD),
  );
  expect(holding).toHaveLength(3);
  await importThroughApi(request, TAU2_RETAIL, DATASET);
  const datasetId = await datasetIdByName(request, DATASET);
  await page.goto(`/datasets/${datasetId}`);
  await page.getByRole('searchbox', { name: 'Search trajectories' }).fill(WORD);
  await expect(page.getByTestId('trajectory-total')).toHaveText(`${holding.length} trajectories`);
  await page.getByTestId('trajectory-row').first().getByTestId('trajectory-name').click();
  // The link carries the word, so a reload or a shared link marks it too.
  await expect(page).toHaveURL(/[?&]mark=Thermostat/);
  const marked = page.getByTestId('observation').locator('mark');
  await expect(marked.first()).toBeVisible();
  for (const text of await marked.allTextContents()) expect(text.toLowerCase()).toBe(WORD);
  // The next step keeps the word marked where it shows.
  await page.keyboard.press('j');
  await expect(page).toHaveURL(/[?&]mark=Thermostat/);
});

test('a search result in terminal output opens scrolled to the words, marked', async ({
  page,
  request,
}) => {
  // walk 45: "Login incorrect" opened the right step, unmarked, below the fold of its output.
  const file = sharedDataPath('swe-agent/trajectories/demonstrations/ctf/misc/networking_1.traj');
  await importThroughApi(request, file, 'search-terminal-marks');
  const datasetId = await datasetIdByName(request, 'search-terminal-marks');
  await page.goto(`/datasets/${datasetId}`);
  await page.getByRole('searchbox', { name: 'Search trajectories' }).fill('"Login incorrect"');
  // The dataset holds this one trajectory: its snippet says the search has been applied.
  const row = page.getByTestId('trajectory-row').first();
  await expect(row.getByTestId('search-snippet').locator('mark')).toHaveText('Login incorrect');
  await row.getByTestId('trajectory-name').click();
  await expect(page).toHaveURL(/[?&]step=3&mark=Login%20incorrect/);
  const observation = page.getByTestId('observation');
  await expect(observation).toHaveAttribute('data-kind', 'terminal');
  const marked = observation.locator('mark');
  await expect(marked.first()).toHaveText('Login incorrect');
  await expect(marked.first()).toBeInViewport();
});

test('a result deep in an output of thousands of lines opens scrolled to its line, marked', async ({
  page,
  request,
}) => {
  // Above 2,000 lines only the lines in sight are rendered, so the mark exists only once the
  // output has scrolled to it. A tool's 3,000-line listing, the word near its end (search reads a
  // long output's first 4,096 and last 1,024 characters).
  const listing = Array.from({ length: 3000 }, (_, n) =>
    n === 2990 ? `file ${n}: quartzite.log` : `file ${n}: plain.log`,
  ).join('\n');
  const record = {
    id: 'long-listing',
    messages: [
      { role: 'user', content: 'List every file.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: listing },
      { role: 'assistant', content: 'Done.' },
    ],
  };
  const folder = mkdtempSync(join(tmpdir(), 'terrarium-e2e-'));
  const file = join(folder, 'long-listing.jsonl');
  writeFileSync(file, `${JSON.stringify(record)}\n`);
  await importThroughApi(request, file, 'search-long-output', 'openai-messages');
  const datasetId = await datasetIdByName(request, 'search-long-output');
  await page.goto(`/datasets/${datasetId}`);
  await page.getByRole('searchbox', { name: 'Search trajectories' }).fill('quartzite');
  const row = page.getByTestId('trajectory-row').first();
  await expect(row.getByTestId('search-snippet').locator('mark')).toHaveText('quartzite');
  await row.getByTestId('trajectory-name').click();
  const observation = page.getByTestId('observation');
  await expect(observation.locator('[data-virtualized]')).toHaveCount(1);
  const marked = observation.locator('mark');
  await expect(marked).toHaveText('quartzite');
  await expect(marked).toBeInViewport();
});
