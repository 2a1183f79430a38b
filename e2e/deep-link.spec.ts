import { expect, test } from '@playwright/test';
import { TAU2_RETAIL, datasetIdByName, importThroughApi, trajectoryIdOf } from './support/api';
import { expectStep } from './support/replay';
import { expectedSteps, readTau2Simulations } from './support/tau2';

const DATASET = 'deep-link-retail';

test('the URL of a step reopens that step, and back/forward move between pages', async ({
  page,
  context,
  request,
}) => {
  const [simulation] = readTau2Simulations(TAU2_RETAIL);
  if (!simulation) throw new Error('the retail file has no simulation');
  const steps = expectedSteps(simulation);
  expect(steps[5]?.text).toBe('get_user_details');

  await importThroughApi(request, TAU2_RETAIL, DATASET);
  const datasetId = await datasetIdByName(request, DATASET);
  const trajectoryId = await trajectoryIdOf(request, datasetId, simulation.id);

  // From the list, as a person would get there.
  await page.goto(`/datasets/${datasetId}`);
  await expect(page.getByTestId('trajectory-total')).toHaveText('40 trajectories');
  await page
    .getByTestId('trajectory-row')
    .getByRole('link', { name: simulation.listName, exact: true })
    .click();
  await expect(page).toHaveURL(`/datasets/${datasetId}/trajectories/${trajectoryId}?step=1`);
  await expectStep(page, 1, steps);
  for (let press = 0; press < 5; press++) await page.keyboard.press('j');
  await expectStep(page, 6, steps);
  const actionText = (await page.getByTestId('step-action').textContent()) ?? '';
  const observationText = (await page.getByTestId('observation').textContent()) ?? '';
  expect(actionText).toContain('get_user_details');

  // The copied link, opened in a new tab, lands on the same step with the same content.
  const link = page.url();
  expect(new URL(link).search).toBe('?step=6');
  const reopened = await context.newPage();
  await reopened.goto(link);
  await expectStep(reopened, 6, steps);
  await expect(reopened.getByTestId('trajectory-title')).toHaveText(simulation.id);
  await expect(reopened.getByTestId('step-action')).toHaveText(actionText);
  await expect(reopened.getByTestId('observation')).toHaveText(observationText);
  await expect(reopened.getByTestId('timeline')).toHaveAttribute('aria-valuenow', '6');
  await reopened.close();

  // Stepping replaces the history entry, so back leaves the replay and forward returns to step 6.
  await page.goBack();
  await expect(page).toHaveURL(`/datasets/${datasetId}`);
  await expect(page.getByTestId('trajectory-total')).toHaveText('40 trajectories');
  await page.goForward();
  await expectStep(page, 6, steps);
  await expect(page.getByTestId('step-action')).toHaveText(actionText);

  // A link past the end lands on the last step; the URL is corrected to it.
  await page.goto(`/datasets/${datasetId}/trajectories/${trajectoryId}?step=999`);
  await expectStep(page, steps.length, steps);
});

test('a link to a run or a trajectory that does not exist says so on a page of its own', async ({
  page,
  request,
}) => {
  // walk 45: such links showed "Could not load the run: runId: no bench run 999", twice.
  await page.goto('/bench-runs/999999');
  await expect(page.getByRole('heading', { level: 1, name: 'No such run' })).toBeVisible();
  await expect(page.getByTestId('not-found')).toHaveText(
    'No bench run has the id 999999; it may have been deleted. See the benches and their runs.',
  );
  await expect(page.getByRole('alert')).toHaveCount(0);

  await importThroughApi(request, TAU2_RETAIL, DATASET);
  const datasetId = await datasetIdByName(request, DATASET);
  await page.goto(`/datasets/${datasetId}/trajectories/999999`);
  await expect(page.getByRole('heading', { level: 1, name: 'No such trajectory' })).toBeVisible();
  await expect(page.getByTestId('not-found')).toHaveText(
    `No trajectory has the id 999999; it may have been deleted with its dataset. See the trajectories of ${DATASET}.`,
  );
  await expect(page.getByRole('alert')).toHaveCount(0);
});
