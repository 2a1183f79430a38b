import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { TAU2_RETAIL, importThroughApi, sharedDataPath } from './support/api';

// SWE-agent data is MIT (../shared/data/swe-agent/LICENSE.upstream; shipped in demo/data).
const SWE_AGENT = sharedDataPath('swe-agent');

test('the Worlds page opens on a dataset with shell steps and replays it in rebuilt worlds', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const files = readdirSync(SWE_AGENT).filter((name) => name.endsWith('.traj'));
  expect(files).toHaveLength(22);
  // Another dataset with shell steps, made first: the page opens on it, not on worlds-swe.
  for (const file of files.slice(0, 2))
    await importThroughApi(request, join(SWE_AGENT, file), 'worlds-a');
  for (const file of files) await importThroughApi(request, join(SWE_AGENT, file), 'worlds-swe');
  // Tool calls are no shell steps: a tau2 dataset is not offered.
  await importThroughApi(request, TAU2_RETAIL, 'worlds-tool');

  await page.goto('/worlds');
  const select = page.getByTestId('worlds-dataset');
  await expect(select).not.toHaveValue('');
  await expect(page.getByTestId('worlds-summary')).toBeVisible({ timeout: 60_000 });
  await expect(select.locator('option', { hasText: 'worlds-tool' })).toHaveCount(0);

  await select.selectOption({ label: 'worlds-swe' });
  const sweId = await select.inputValue();
  // The figures packages/api's worlds router test measures on the same 22 trajectories.
  await expect(page.getByTestId('worlds-summary')).toHaveText(
    '22 worlds, 203 transitions replayed: 56 exact, 131 fallback, 16 mismatch (29 harness steps left out).',
    { timeout: 60_000 },
  );
  const mismatches = page.getByTestId('worlds-mismatches').locator('li');
  await expect(mismatches).toHaveCount(16);
  await expect(page.getByTestId('worlds-mismatches-heading')).toHaveText(
    'Mismatches (16 of 16 shown)',
  );

  // The dataset grows from elsewhere (40 tool-call trajectories, as a CLI import would add them):
  // back on the page, its figures are measured again rather than shown as they were.
  await importThroughApi(request, TAU2_RETAIL, 'worlds-swe');
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Datasets' })
    .click();
  await expect(page).not.toHaveURL(/\/worlds/);
  await page.goBack();
  await expect(page.getByTestId('worlds-summary')).toHaveText(
    '62 worlds, 203 transitions replayed: 56 exact, 131 fallback, 16 mismatch (29 harness steps left out).',
    { timeout: 60_000 },
  );
  await expect(page.getByTestId('worlds-outdated')).toHaveCount(0);
  // Each mismatch names its step and trajectory; the name opens the replay at that step.
  const where = mismatches.first().locator('.worlds-command .muted');
  const [, stepText = '', name = ''] = /^step (\d+) of (.+)$/.exec(await where.innerText()) ?? [];
  expect(name).not.toBe('');
  await where.getByRole('link', { name }).click();
  await expect(page.getByTestId('step-counter')).toContainText(`Step ${stepText} / `);
  await expect(page.getByTestId('step-action')).toHaveAttribute('data-action-type', 'command');

  // A link that names the dataset as the CLI does opens it, named so in the picker (walk 43: it
  // showed these worlds under another dataset's name).
  await page.goto('/worlds?dataset=worlds-swe');
  await expect(select).toHaveValue(sweId);
  await expect(page.getByTestId('worlds-summary')).toContainText('62 worlds', { timeout: 60_000 });

  // A link to a dataset of tool calls says why nothing is replayed (walk 43 saw "200 worlds, 0
  // transitions replayed"), and replays nothing, whether it names the dataset or gives its id.
  const toolNote =
    'worlds-tool has no shell commands to replay: its tool calls become tool worlds, which answer from the recorded responses over the benchmark\'s database (the README\'s "Executable worlds" section tells how to run them). This page measures worlds rebuilt from terminal and SWE-agent trajectories.';
  await page.goto('/worlds?dataset=worlds-tool');
  await expect(page.getByTestId('worlds-not-shell')).toHaveText(toolNote);
  const toolId = await select.inputValue();
  await page.goto(`/worlds?dataset=${toolId}`);
  await expect(page.getByTestId('worlds-not-shell')).toHaveText(toolNote);
  await expect(page.getByTestId('worlds-progress')).toHaveCount(0);
  await expect(page.getByTestId('worlds-summary')).toHaveCount(0);
  await page.goto('/worlds?dataset=no-such-dataset');
  await expect(page.getByTestId('worlds-unknown')).toHaveText(
    'No dataset no-such-dataset: choose one above.',
  );
});
