import { expect, test } from '@playwright/test';

/** The demo: the scripted policy plays the builtin tasks; the chart and lineages show tiers rise. */
test('a curriculum plays live and its lineages advance', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: 'Curriculum' }).click();
  await expect(page).toHaveURL(/\/curriculum$/);
  await page.getByLabel('Generations').fill('4');
  await page.getByRole('button', { name: 'Play with the scripted policy' }).click();
  const rows = page.locator('.curriculum-generations tbody tr');
  await expect(rows).toHaveCount(4);
  // Mean tier per generation: every lineage passes above 6/8 and moves on once per generation.
  await expect(rows.locator('td:last-child')).toHaveText(['0.00', '1.00', '2.00', '3.00']);
  await expect(
    page.getByRole('figure', { name: 'Curriculum chart' }).locator('svg').first(),
  ).toBeVisible();
  await expect(page.locator('.curriculum-lineage summary')).toHaveText([
    'scratch-last-line: tier 4',
    'scratch-count-lines: tier 4',
  ]);
  await page.locator('.curriculum-lineage summary').first().click();
  await expect(page.locator('.curriculum-rejected').first()).toContainText(
    'refused skill of scratch-last-line.t2-scenario: the verifier does not check the answer',
  );
});
