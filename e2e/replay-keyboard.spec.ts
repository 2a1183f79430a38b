import { expect, test } from '@playwright/test';
import {
  TAU2_RETAIL,
  datasetIdByName,
  importThroughApi,
  sharedDataPath,
  trajectoryIdOf,
} from './support/api';
import { expectStep } from './support/replay';
import { expectedSteps, readTau2Simulations } from './support/tau2';

const DATASET = 'replay-keyboard-retail';

test('stepping through a real trajectory with the keyboard, playing it and jumping on the timeline', async ({
  page,
  request,
}) => {
  const [simulation] = readTau2Simulations(TAU2_RETAIL);
  if (!simulation) throw new Error('the retail file has no simulation');
  const steps = expectedSteps(simulation);
  // The first retail conversation: greeting, e-mail lookup, order details, payment change.
  expect(steps).toHaveLength(14);
  expect(steps[4]).toEqual({
    actor: 'agent',
    text: 'find_user_id_by_email',
    toolCall: true,
    observation: 'isabella_lopez_6490',
  });

  await importThroughApi(request, TAU2_RETAIL, DATASET);
  const datasetId = await datasetIdByName(request, DATASET);
  const trajectoryId = await trajectoryIdOf(request, datasetId, simulation.id);

  await page.goto(`/datasets/${datasetId}/trajectories/${trajectoryId}`);
  await expect(page.getByTestId('trajectory-title')).toHaveText(simulation.id);
  await expectStep(page, 1, steps);
  await expect(page.getByTestId('step-action')).toContainText('Hi! How can I help you today?');

  for (const number of [2, 3, 4, 5]) {
    await page.keyboard.press('j');
    await expectStep(page, number, steps);
  }
  // Step 5 is the tool call whose result is the user id.
  await expect(page.getByTestId('step-action')).toContainText('isabella.lopez3271@example.com');
  const observation = page.getByTestId('observation');
  await expect(observation).toHaveAttribute('data-kind', 'text');
  await expect(observation).toContainText('isabella_lopez_6490');

  await page.keyboard.press('k');
  await expectStep(page, 4, steps);
  await expect(page.getByTestId('step-action')).toContainText(
    'Sure, it’s isabella.lopez3271@example.com.',
  );

  await page.keyboard.press('ArrowDown');
  await expectStep(page, 5, steps);
  await page.keyboard.press('ArrowDown');
  await expectStep(page, 6, steps);
  await expect(page.getByTestId('step-action')).toContainText('get_user_details');
  await expect(observation).toHaveAttribute('data-kind', 'json');
  await expect(observation).toContainText('isabella_lopez_6490');

  await page.keyboard.press('G');
  await expectStep(page, 14, steps);
  await expect(page.getByTestId('step-action')).toContainText('###STOP###');
  // j on the last step stays there.
  await page.keyboard.press('j');
  await expectStep(page, 14, steps);

  await page.keyboard.press('g');
  await expectStep(page, 1, steps);
  await page.keyboard.press('ArrowUp');
  await expectStep(page, 1, steps);

  // Space plays: the counter advances on its own; space again pauses.
  const play = page.getByRole('button', { name: /Play|Pause/ });
  await expect(play).toHaveAttribute('aria-pressed', 'false');
  await page.keyboard.press(' ');
  await expect(play).toHaveAttribute('aria-pressed', 'true');
  await expectStep(page, 2, steps);
  await expectStep(page, 3, steps);
  await page.keyboard.press(' ');
  await expect(play).toHaveAttribute('aria-pressed', 'false');
  await expect(play).toHaveText('▶ Play');

  // A click on the timeline jumps to the step under the pointer: the middle of step 10's slot.
  const timeline = page.getByTestId('timeline');
  await expect(timeline).toHaveAttribute('aria-valuemax', String(steps.length));
  const box = await timeline.boundingBox();
  if (!box) throw new Error('the timeline is not laid out');
  await timeline.click({ position: { x: (box.width * 9.5) / steps.length, y: box.height / 2 } });
  await expectStep(page, 10, steps);
  await expect(timeline).toHaveAttribute('aria-valuenow', '10');
  await expect(timeline).toHaveAttribute('aria-valuetext', `Step 10 of ${steps.length}`);
  await expect(page.getByTestId('step-action')).toContainText(
    steps[9]?.text.slice(0, 60) ?? 'missing',
  );
  // Keys keep working from the jumped-to step.
  await page.keyboard.press('k');
  await expectStep(page, 9, steps);
});

test('a terminal line longer than the view scrolls sideways to its end', async ({
  page,
  request,
}) => {
  // A real SWE-agent CTF run: step 4's observation is one line of 1,577 characters (bits, then
  // the shell's done marker).
  const file = sharedDataPath('swe-agent/trajectories/demonstrations/ctf/crypto/eps.traj');
  await importThroughApi(request, file, 'replay-long-line');
  const datasetId = await datasetIdByName(request, 'replay-long-line');
  const trajectoryId = await trajectoryIdOf(request, datasetId, 'ctf__crypto__eps.traj');
  await page.goto(`/datasets/${datasetId}/trajectories/${trajectoryId}?step=4`);
  const terminal = page.getByTestId('observation').locator('pre.terminal');
  await expect(terminal).toContainText('///PROCESS-DONE:0:PROCESS-DONE///');
  // Whether the marker's last character is inside the terminal's visible box, after scrolling it
  // sideways by `left` pixels (a Range measures the characters, not the element holding them).
  const markerShownAt = (left: number) =>
    terminal.evaluate((element, scrollLeft) => {
      element.scrollLeft = scrollLeft;
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const at = node.textContent?.indexOf('PROCESS-DONE///') ?? -1;
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at + 'PROCESS-DONE///'.length - 1);
        range.setEnd(node, at + 'PROCESS-DONE///'.length);
        const char = range.getBoundingClientRect();
        const box = element.getBoundingClientRect();
        return char.left >= box.left && char.right <= box.right;
      }
      return null;
    }, left);
  expect(await markerShownAt(0)).toBe(false);
  // Scrolled to its end, the line's last character is on screen (it was clipped, out of reach).
  expect(await markerShownAt(1_000_000)).toBe(true);
  // Its actions are commands, not tool calls: no tools, said as such (not "0 · inferred").
  const tools = page.getByTestId('context-tools');
  await expect(tools.getByRole('button', { name: /Tools/ })).toContainText('Toolsnone');
  await tools.getByRole('button', { name: /Tools/ }).click();
  await expect(tools).toContainText('no tool calls to infer them from');
});
