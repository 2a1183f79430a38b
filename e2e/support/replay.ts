import { expect, type Page } from '@playwright/test';
import type { ExpectedStep } from './tau2';

/** The counter, the action and the observation of 1-based step `number` are on screen. */
export async function expectStep(
  page: Page,
  number: number,
  steps: readonly ExpectedStep[],
): Promise<void> {
  const step = steps[number - 1];
  if (!step) throw new Error(`no step ${number} in the expected steps`);
  await expect(page.getByTestId('step-counter')).toHaveText(`Step ${number} / ${steps.length}`);
  // A trajectory opened without ?step shows step 1; stepping writes the step into the URL.
  await expect.poll(() => new URL(page.url()).searchParams.get('step') ?? '1').toBe(String(number));
  const action = page.getByTestId('step-action');
  await expect(action).toHaveAttribute('data-action-type', step.toolCall ? 'tool_call' : 'message');
  await expect(action).toContainText(step.text);
  await expect(page.getByTestId('step-actor')).toHaveText(step.actor);
  const observation = page.getByTestId('observation');
  if (step.observation === null) {
    await expect(observation).toHaveAttribute('data-kind', 'none');
  } else {
    await expect(observation).not.toHaveAttribute('data-kind', 'none');
  }
}
