import { createServer, type ServerResponse } from 'node:http';
import { expect, test } from '@playwright/test';
import { datasetIdByName, importThroughApi, TAU2_RETAIL, trajectoryIdOf } from './support/api';
import { answerChatCompletion, listenOnLoopback } from './support/endpoint';

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

test('a slow endpoint shows how far it has come, and Stop keeps its steps and ends its requests', async ({
  page,
  request,
}) => {
  // An endpoint that answers its first request at once and holds every later one.
  const held: ServerResponse[] = [];
  let received = 0;
  let abandoned = 0;
  const endpoint = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      received += 1;
      if (received > 1) {
        held.push(response);
        response.on('close', () => {
          if (!response.writableEnded) abandoned += 1;
        });
        return;
      }
      answerChatCompletion(response, 'slow', '{}');
    });
  });
  const slow = `openai:${await listenOnLoopback(endpoint)}#slow`;
  try {
    const report = await importThroughApi(request, TAU2_RETAIL, `${DATASET}-slow`);
    expect(report.trajectories).toBe(40);
    const datasetId = await datasetIdByName(request, `${DATASET}-slow`);
    const trajectoryId = await trajectoryIdOf(request, datasetId, SIMULATION);
    const sims = encodeURIComponent(['replay', slow].join(','));
    await page.goto(`/datasets/${datasetId}/trajectories/${trajectoryId}/compare?sims=${sims}`);
    // Only the link names the endpoint: replay, which the server offers, runs as the page opens,
    // and the endpoint waits for Run.
    await expect(page.getByTestId('compare-held-sims')).toContainText(slow);
    await expect(
      page.locator('.run-status li[data-sim="replay"]').getByTestId('run-done'),
    ).toHaveText('4 transitions simulated');
    expect(received).toBe(0);
    await page.getByTestId('compare-run').click();

    const slowLine = page.locator(`.run-status li[data-sim="${slow}"]`);
    await expect(slowLine).toHaveAttribute('data-status', 'running');
    await expect(slowLine.getByTestId('run-progress')).toHaveText('1 / 4');
    // Replay finished long ago; its results are shown while the endpoint works.
    await expect(
      page.locator('.run-status li[data-sim="replay"]').getByTestId('run-done'),
    ).toHaveText('4 transitions simulated');
    await expect(page.getByTestId('compare-summary').locator('tbody tr')).toHaveCount(1);

    await slowLine.getByRole('button', { name: `Stop ${slow}` }).click();
    await expect(slowLine).toHaveAttribute('data-status', 'stopped');
    await expect(slowLine.getByTestId('run-done')).toHaveText('stopped after 1 of 4 transitions');
    // The stopped run's step sits beside replay's: a row in the summary, a prediction at step 5.
    await expect(
      page
        .getByTestId('compare-summary')
        .locator(`tr[data-sim="${slow}"]`)
        .getByTestId('summary-simulated'),
    ).toHaveText('1 / 1 (stopped of 4)');
    await expect(page.getByTestId('sim-prediction')).toHaveCount(2);
    // The server stopped too: the request it was waiting on was dropped, and no other was sent.
    await expect.poll(() => abandoned).toBe(1);
    expect(received).toBe(2);
  } finally {
    // Stop listening first, then drop every connection: a client's retry accepted after the held
    // answers were dropped would otherwise keep close() waiting.
    const closed = new Promise((resolve) => endpoint.close(resolve));
    endpoint.closeAllConnections();
    await closed;
  }
});

test('seven runs stream four at a time, so the page keeps connections for its other requests', async ({
  page,
  request,
}) => {
  // An endpoint that holds every request: each run streams until it is stopped.
  const held: ServerResponse[] = [];
  const endpoint = createServer((incoming, response) => {
    incoming.resume();
    held.push(response);
  });
  const endpointUrl = await listenOnLoopback(endpoint);
  const sims = [1, 2, 3, 4, 5, 6, 7].map((n) => `openai:${endpointUrl}#held-${n}`);
  try {
    const report = await importThroughApi(request, TAU2_RETAIL, `${DATASET}-five`);
    expect(report.trajectories).toBe(40);
    const datasetId = await datasetIdByName(request, `${DATASET}-five`);
    const trajectoryId = await trajectoryIdOf(request, datasetId, SIMULATION);
    await page.goto(
      `/datasets/${datasetId}/trajectories/${trajectoryId}/compare?sims=${encodeURIComponent(sims.join(','))}`,
    );
    await expect(page.getByTestId('compare-held-sims')).toBeVisible();
    await page.getByTestId('compare-run').click();
    const line = (sim: string) => page.locator(`.run-status li[data-sim="${sim}"]`);
    for (const sim of sims.slice(0, 4))
      await expect(line(sim).getByTestId('run-progress')).toHaveText('0 / 4');
    // Seven streams would take the browser's six connections to the server and starve the page.
    for (const sim of sims.slice(4))
      await expect(line(sim).getByTestId('run-waiting')).toHaveText(
        'waiting: 4 server runs stream at a time from this page',
      );
    const fifth = sims[4] ?? '';
    await expect.poll(() => held.length).toBe(4);
    // The page can still ask its server: a request goes over a connection the runs left free.
    expect(await page.evaluate(async () => (await fetch('/trpc/auth.whoami')).status)).toBe(200);

    const first = sims[0] ?? '';
    await line(first)
      .getByRole('button', { name: `Stop ${first}` })
      .click();
    await expect(line(first)).toHaveAttribute('data-status', 'stopped');
    await expect(line(fifth).getByTestId('run-progress')).toHaveText('0 / 4');
    await expect(line(sims[5] ?? '').getByTestId('run-waiting')).toBeVisible();
    await expect.poll(() => held.length).toBe(5);
  } finally {
    // Stop listening first, then drop every connection: a client's retry accepted after the held
    // answers were dropped would otherwise keep close() waiting.
    const closed = new Promise((resolve) => endpoint.close(resolve));
    endpoint.closeAllConnections();
    await closed;
  }
});

test('a link from another site sends the trajectory to no endpoint it names until the user runs it', async ({
  page,
  request,
  baseURL,
}) => {
  // walk 41: a page elsewhere sent a signed-in browser to a Compare link naming its own endpoint,
  // and the page, opening, posted the whole trajectory (task, personal details) there.
  let received = 0;
  const endpoint = createServer((incoming, response) => {
    incoming.resume();
    received += 1;
    answerChatCompletion(response, 'exfil', '{}');
  });
  const exfil = `openai:${await listenOnLoopback(endpoint)}#exfil`;
  const report = await importThroughApi(request, TAU2_RETAIL, `${DATASET}-link`);
  expect(report.trajectories).toBe(40);
  const datasetId = await datasetIdByName(request, `${DATASET}-link`);
  const trajectoryId = await trajectoryIdOf(request, datasetId, SIMULATION);
  const link = new URL(
    `/datasets/${datasetId}/trajectories/${trajectoryId}/compare?sims=${encodeURIComponent(['replay', exfil].join(','))}`,
    baseURL,
  ).href;
  // Another site (`localhost`, not the workbench's 127.0.0.1) that sends its visitor there.
  const attacker = createServer((incoming, response) => {
    incoming.resume();
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<!doctype html><script>location.href = ${JSON.stringify(link)};</script>`);
  });
  const attackerUrl = (await listenOnLoopback(attacker)).replace('127.0.0.1', 'localhost');
  try {
    await page.goto(attackerUrl);
    await expect(page).toHaveURL(link);
    await expect(page.getByTestId('compare-held-sims')).toHaveText(
      `This link names a simulator this server does not offer, so it waits for Run: ${exfil}. Running an endpoint’s simulator sends it this trajectory.`,
    );
    // Replay ran as the page opened; the endpoint, started with it before, would have been asked.
    await expect(
      page.locator('.run-status li[data-sim="replay"]').getByTestId('run-done'),
    ).toHaveText('4 transitions simulated');
    expect(received).toBe(0);
    // The user's own Run sends it, and the note goes.
    await page.getByTestId('compare-run').click();
    await expect(
      page.locator(`.run-status li[data-sim="${exfil}"]`).getByTestId('run-done'),
    ).toHaveText('4 transitions simulated');
    expect(received).toBe(4);
    await expect(page.getByTestId('compare-held-sims')).toHaveCount(0);
  } finally {
    await new Promise((resolve) => attacker.close(resolve));
    const closed = new Promise((resolve) => endpoint.close(resolve));
    endpoint.closeAllConnections();
    await closed;
  }
});
