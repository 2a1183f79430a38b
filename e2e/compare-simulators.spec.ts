import { expect, test } from '@playwright/test';
import { datasetIdByName, importThroughApi, TAU2_RETAIL, trajectoryIdOf } from './support/api';

const DATASET = 'compare-journey';
// The first tau2 retail simulation: 4 transitions (steps 5, 6, 7 and 12, 1-based).
const SIMULATION = '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae';

test('replay and retrieval run side by side on a real trajectory, scored per step', async ({
  page,
  request,
}) => {
  const report = await importThroughApi(request, TAU2_RETAIL, DATASET);
  expect(report.trajectories).toBe(40);
  const datasetId = await datasetIdByName(request, DATASET);
  const trajectoryId = await trajectoryIdOf(request, datasetId, SIMULATION);

  // Open the replay view, then Compare from its header: the link carries the simulators and step.
  await page.goto(`/datasets/${datasetId}/trajectories/${trajectoryId}`);
  await page.getByRole('link', { name: /Compare/ }).click();
  await expect(page).toHaveURL(/\/compare\?.*sims=replay(%2C|,)retrieval/);

  const summary = page.getByTestId('compare-summary');
  const replayRow = summary.locator('tr[data-sim="replay"]');
  const retrievalRow = summary.locator('tr[data-sim="retrieval"]');
  // Replay returns the recorded observation: every score is perfect and every step a cache hit.
  await expect(replayRow.locator('[data-metric="exact-match"]')).toHaveText('100.0');
  await expect(replayRow.locator('[data-metric="content"]')).toHaveText('100.0');
  await expect(replayRow).toContainText('100%');
  // Retrieval leaves this trajectory out of its index, so it must predict from the other 39.
  await expect(retrievalRow.locator('[data-metric="exact-match"]')).toHaveText('0.0');

  await expect(page.getByTestId('compare-step')).toHaveCount(4);
  await expect(page.getByTestId('sim-prediction')).toHaveCount(2);
  // At the first transition the real observation is the user id; replay's diff against it is empty.
  await expect(page.getByText('isabella_lopez_6490').first()).toBeVisible();
  await expect(page.locator('[data-testid="sim-prediction"][data-sim="replay"]')).toContainText(
    'Identical text.',
  );
});
