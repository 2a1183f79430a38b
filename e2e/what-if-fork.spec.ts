import { expect, test } from '@playwright/test';
import {
  datasetIdByName,
  importThroughApi,
  TAU2_RETAIL,
  trajectoriesOf,
  trajectoryIdOf,
} from './support/api';

const DATASET = 'what-if-journey';
// The first tau2 retail simulation (14 steps). Step 6 (1-based) calls get_user_details for the
// user found at step 5; the journey asks what would have come back for another user.
const SIMULATION = '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae';
const FORK_STEP = 6;
const CONTINUE_STEPS = 3;
const EDITED_USER = 'mei_kovacs_8020';

test('"What if": edit an argument in Compare, fork with retrieval, replay the fork', async ({
  page,
  request,
}) => {
  const report = await importThroughApi(request, TAU2_RETAIL, DATASET);
  expect(report.trajectories).toBe(40);
  const datasetId = await datasetIdByName(request, DATASET);
  const trajectoryId = await trajectoryIdOf(request, datasetId, SIMULATION);

  await page.goto(
    `/datasets/${datasetId}/trajectories/${trajectoryId}/compare?sims=retrieval&step=${FORK_STEP}`,
  );
  await expect(page.getByTestId('compare-step')).toHaveCount(4);
  const detail = page.getByRole('article', { name: `Step ${FORK_STEP}` });
  await expect(detail.getByTestId('step-action')).toContainText('get_user_details');

  await detail.getByTestId('what-if').click();
  const editor = page.getByTestId('fork-editor');
  await expect(editor.getByLabel('Tool name')).toHaveValue('get_user_details');
  const args = editor.getByLabel('Arguments (JSON)');
  await expect(args).toHaveValue('{\n  "user_id": "isabella_lopez_6490"\n}');

  // Invalid JSON is refused before anything is sent.
  await args.fill('{"user_id": ');
  await expect(editor.getByTestId('fork-error')).toContainText('not valid JSON');
  await expect(editor.getByTestId('fork-submit')).toBeDisabled();

  await args.fill(`{"user_id": "${EDITED_USER}"}`);
  await expect(editor.getByTestId('fork-error')).toHaveCount(0);
  // Replay answers only recorded actions, and an edited action never was: not offered (walk 44
  // forked with it and stored empty "simulated" observations).
  await expect(editor.getByLabel('Fork simulator').locator('option[value="replay"]')).toHaveCount(
    0,
  );
  // Nor the model decoded in this browser: a fork runs on the server (walk 48 forked with it and
  // was refused with advice that could not work).
  await expect(
    editor.getByLabel('Fork simulator').locator('option[value^="onnx:browser/"]'),
  ).toHaveCount(0);
  await editor.getByLabel('Fork simulator').selectOption('retrieval');
  await editor.getByLabel('Continue steps').fill(String(CONTINUE_STEPS));
  await editor.getByTestId('fork-submit').click();

  const status = editor.getByTestId('fork-status');
  await expect(status).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  // The edited step, then the parent's next 3: a tool call and two messages.
  await expect(status).toContainText(
    `in ${DATASET}-forks: ${FORK_STEP + CONTINUE_STEPS} steps, 2 simulated`,
  );

  // The fork is a trajectory like any other, in a dataset of its own.
  const forksId = await datasetIdByName(request, `${DATASET}-forks`);
  const forks = await trajectoriesOf(request, forksId);
  expect(forks).toHaveLength(1);
  expect(forks[0]?.externalId).toMatch(new RegExp(`^${SIMULATION}~fork@${FORK_STEP}~[0-9a-f]{8}$`));

  await editor.getByTestId('fork-link').click();
  await expect(page).toHaveURL(new RegExp(`/datasets/${forksId}/trajectories/${forks[0]?.id}`));
  await expect(page.getByTestId('trajectory-name')).toHaveText(
    `task 40 · trial 0 · fork at step ${FORK_STEP}`,
  );
  await expect(page.getByTestId('trajectory-title')).toHaveText(forks[0]?.externalId ?? '');
  await expect(page.getByTestId('step-counter')).toHaveText(
    `Step ${FORK_STEP} / ${FORK_STEP + CONTINUE_STEPS}`,
  );
  const action = page.getByTestId('step-action');
  await expect(action).toHaveAttribute('data-action-type', 'tool_call');
  await expect(action).toContainText('get_user_details');
  await expect(action).toContainText(EDITED_USER);
  await expect(action).not.toContainText('isabella_lopez_6490');
  // The fork says what it is: the edited step is marked, and the parent is one click away.
  await expect(page.getByTestId('step-simulated')).toHaveText(
    'edited action · simulated observation',
  );
  await expect(page.getByTestId('fork-parent')).toHaveText(SIMULATION);

  // Steps before the fork are the parent's; the ones after replay its recorded actions.
  await page.keyboard.press('k');
  await expect(page.getByTestId('step-counter')).toHaveText(
    `Step 5 / ${FORK_STEP + CONTINUE_STEPS}`,
  );
  await expect(action).toContainText('isabella.lopez3271@example.com');
  await expect(page.getByTestId('observation')).toContainText('isabella_lopez_6490');
  await expect(page.getByTestId('step-simulated')).toHaveCount(0);
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await expect(page.getByTestId('step-counter')).toHaveText(
    `Step 7 / ${FORK_STEP + CONTINUE_STEPS}`,
  );
  await expect(action).toContainText('get_order_details');
  await expect(page.getByTestId('step-simulated')).toHaveText('simulated observation');
  await expect(page.getByTestId('observation')).not.toHaveAttribute('data-kind', 'none');
});
