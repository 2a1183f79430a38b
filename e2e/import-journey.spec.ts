import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  datasetIdByName,
  importThroughApi,
  sharedDataPath,
  TAU2_RETAIL,
  trpcMutation,
} from './support/api';
import { readTau2Simulations } from './support/tau2';

const MALFORMED_JSONL = resolve(import.meta.dirname, 'fixtures/openai-messages-one-bad-line.jsonl');

test('a real tau2 results file uploaded from the Import page becomes a dataset', async ({
  page,
}) => {
  const simulations = readTau2Simulations(TAU2_RETAIL);
  expect(simulations).toHaveLength(40);

  await page.goto('/import');
  // A format picked by hand says what its files look like.
  await expect(page.getByTestId('format-description')).toHaveText(
    'read from the start of each file',
  );
  await page.getByLabel('Format').selectOption('tau2-bench');
  await expect(page.getByTestId('format-description')).toHaveText(
    'tau2-bench results: one JSON with tasks and simulations',
  );
  await page.getByLabel('Format').selectOption('');
  await page.getByTestId('import-files').setInputFiles(TAU2_RETAIL);
  await page.getByRole('button', { name: 'Import 1 file' }).click();

  const upload = page.getByTestId('upload');
  await expect(upload).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(upload.getByTestId('report-trajectories')).toHaveText('40');
  await expect(upload.getByTestId('report-transitions')).toHaveText('299');
  await expect(upload.getByTestId('report-quarantined')).toHaveText('0');
  await expect(upload.getByTestId('import-errors')).toHaveCount(0);

  // The dataset is named after the file and the list shows the same counts.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Datasets' })
    .click();
  await expect(page).toHaveURL(/\/$/);
  const row = page
    .getByTestId('datasets-table')
    .getByRole('row')
    .filter({
      has: page.getByRole('link', { name: 'gpt-4.1_retail_defautl_gpt-4.1_1trials', exact: true }),
    });
  await expect(row).toHaveCount(1);
  // Name, trajectories, transitions, steps, domains, formats, quarantined.
  const cells = row.getByRole('cell');
  await expect(cells.nth(1)).toHaveText('40');
  await expect(cells.nth(2)).toHaveText('299');
  await expect(cells.nth(4)).toHaveText('tool');
  await expect(cells.nth(5)).toHaveText('tau2-bench');
  await expect(cells.nth(6)).toHaveText('0');

  // The dataset opens on its 40 trajectories.
  await row.getByRole('link', { name: 'gpt-4.1_retail_defautl_gpt-4.1_1trials' }).click();
  await expect(page.getByTestId('trajectory-total')).toHaveText('40 trajectories');
});

test('a JSONL file with one malformed line imports the rest and names file:line', async ({
  page,
}) => {
  await page.goto('/import');
  await page.getByTestId('import-files').setInputFiles(MALFORMED_JSONL);
  await page.getByLabel('Dataset name').fill('journey-malformed');
  await page.getByRole('button', { name: 'Import 1 file' }).click();

  const upload = page.getByTestId('upload');
  await expect(upload).toHaveAttribute('data-status', 'done');
  await expect(upload.getByTestId('report-trajectories')).toHaveText('2');
  await expect(upload.getByTestId('report-transitions')).toHaveText('2');
  await expect(upload.getByTestId('report-quarantined')).toHaveText('1');

  const errors = upload.getByTestId('import-errors').getByRole('row');
  // A header row and the one bad record.
  await expect(errors).toHaveCount(2);
  const errorCells = errors.nth(1).getByRole('cell');
  await expect(errorCells.nth(0)).toHaveText('openai-messages-one-bad-line.jsonl');
  await expect(errorCells.nth(1)).toHaveText('2');
  await expect(errorCells.nth(2)).toContainText('invalid JSON at line 2');
  // This import stored trajectories, so its row offers the dataset.
  await expect(upload.getByRole('link', { name: 'Open journey-malformed' })).toBeVisible();

  await page.goto('/');
  const row = page
    .getByTestId('datasets-table')
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name: 'journey-malformed', exact: true }) });
  await expect(row.getByRole('cell').nth(1)).toHaveText('2');
  await expect(row.getByRole('cell').nth(6)).toHaveText('1');

  // The quarantined count leads to the record itself.
  await row.getByRole('link', { name: '1', exact: true }).click();
  await expect(page).toHaveURL(/\/datasets\/[^/]+\/quarantine$/);
  const quarantined = page.getByTestId('quarantine-table');
  await expect(quarantined).toContainText('openai-messages-one-bad-line.jsonl');
  await expect(quarantined).toContainText('This line was cut off mid-wr');
});

test('a file that adds nothing to an existing dataset says so and offers no link into it', async ({
  page,
}) => {
  await page.goto('/import');
  await page.getByTestId('import-files').setInputFiles(MALFORMED_JSONL);
  await page.getByLabel('Dataset name').fill('journey-nothing');
  await page.getByRole('button', { name: 'Import 1 file' }).click();
  await expect(page.getByTestId('upload')).toHaveAttribute('data-status', 'done');

  await page.goto('/import');
  await page.getByTestId('import-files').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('these are notes, not trajectories\n'),
  });
  await page.getByLabel('Dataset name').fill('journey-nothing');
  await page.getByRole('button', { name: 'Import 1 file' }).click();
  const upload = page.getByTestId('upload');
  await expect(upload).toHaveAttribute('data-status', 'done');
  await expect(upload.getByTestId('upload-verdict')).toHaveText('nothing imported');
  await expect(upload.getByRole('link', { name: 'Open journey-nothing' })).toHaveCount(0);
});

test('a folder of SWE-agent runs keeps its run folders, and the list tells the runs apart', async ({
  page,
}) => {
  // SWE-agent's own layout: a folder per run, each trajectory named after its instance, so two
  // runs of marshmallow-1867 hold files of the same name (real trajectories, ../shared/data).
  const runs = [
    'replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1',
    'replay__marshmallow-code__marshmallow-1867__xml_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1',
  ];
  const root = join(mkdtempSync(join(tmpdir(), 'terrarium-e2e-')), 'journey-demonstrations');
  for (const run of runs) {
    mkdirSync(join(root, run), { recursive: true });
    const file = `${run}/marshmallow-code__marshmallow-1867.traj`;
    copyFileSync(sharedDataPath(`swe-agent/trajectories/demonstrations/${file}`), join(root, file));
    writeFileSync(join(root, run, 'args.yaml'), 'agent: {}\n');
  }
  writeFileSync(join(root, 'LICENSE'), 'MIT\n');

  await page.goto('/import');
  await page.getByTestId('import-folder').setInputFiles(root);
  // The licence and the configs are left out, as the CLI leaves them out of a folder, and named.
  await expect(page.getByTestId('import-left-out')).toHaveText(
    `Left out 3 files: journey-demonstrations/LICENSE, journey-demonstrations/${runs[0]}/args.yaml, journey-demonstrations/${runs[1]}/args.yaml`,
  );
  await page.getByRole('button', { name: 'Import 2 files' }).click();
  await expect(page.getByTestId('import-left-out')).toHaveCount(0);
  // The pick is cleared once sent: another click cannot import it twice.
  await expect(page.getByRole('button', { name: 'Import files', exact: true })).toBeDisabled();
  const uploads = page.getByTestId('upload');
  await expect(uploads).toHaveCount(2);
  for (const run of runs) {
    const upload = uploads.filter({
      has: page.getByText(`journey-demonstrations/${run}/marshmallow-code__marshmallow-1867.traj`),
    });
    await expect(upload).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    await expect(upload.getByTestId('report-trajectories')).toHaveText('1');
  }

  await uploads.first().getByRole('link', { name: 'Open journey-demonstrations' }).click();
  await expect(page.getByTestId('trajectory-total')).toHaveText('2 trajectories');
  const rows = page.getByTestId('trajectory-row');
  await expect(rows.getByTestId('trajectory-name')).toHaveText([
    'marshmallow-code__marshmallow-1867',
    'marshmallow-code__marshmallow-1867',
  ]);
  // Beside each, its run's settings without the instance they repeat.
  for (const settings of [
    'replay__function_calling_replace__install-1',
    'replay__xml_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1',
  ]) {
    await expect(rows.filter({ hasText: settings })).toHaveCount(1);
  }
});

test('an import whose server stops answering says so, and its row follows it once it answers again', async ({
  page,
}) => {
  // The server "goes away" for the page's polls of the import list (walk 40: the row read
  // "importing: 51% stored" with an active Cancel for as long as the server was down).
  let silent = true;
  await page.route('**/trpc/imports.list**', (route) =>
    silent ? route.abort('connectionrefused') : route.fallback(),
  );
  await page.goto('/import');
  await page.getByTestId('import-files').setInputFiles(MALFORMED_JSONL);
  await page.getByLabel('Dataset name').fill('journey-silent');
  await page.getByRole('button', { name: 'Import 1 file' }).click();
  const upload = page.getByTestId('upload');
  await expect(upload).toHaveAttribute('data-status', 'importing');
  await expect(page.getByTestId('server-silent')).toContainText(
    'the figures below are its last. If it stopped, start it again: an import it held goes on from its last stored part.',
  );
  // Back: the next poll brings the job's end, and the note goes.
  silent = false;
  await expect(upload).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('server-silent')).toHaveCount(0);
  await expect(upload.getByTestId('report-trajectories')).toHaveText('2');
});

test('an import started elsewhere shows up without a reload, and says when its dataset is gone', async ({
  page,
  request,
}) => {
  // walk 46: with nothing running when the page opened, a CLI's import never appeared, and a
  // deleted dataset's import still read "imported" beside nothing to open.
  await page.goto('/import');
  await expect(page.getByRole('heading', { name: 'Import trajectories' })).toBeVisible();
  const dataset = 'journey-elsewhere';
  await importThroughApi(request, MALFORMED_JSONL, dataset);
  const row = page.getByRole('article', { name: `Import into ${dataset}` });
  await expect(row).toHaveAttribute('data-status', 'done', { timeout: 15_000 });
  await expect(row.getByRole('link', { name: `Open ${dataset}` })).toBeVisible();
  await trpcMutation(request, 'datasets.delete', {
    datasetId: await datasetIdByName(request, dataset),
  });
  // The next read of the list says so, without a reload.
  await expect(row.getByTestId('dataset-deleted')).toHaveText('(dataset since deleted)', {
    timeout: 15_000,
  });
  await expect(row.getByRole('link', { name: `Open ${dataset}` })).toHaveCount(0);
});

test('older imports are a click away when a folder pushed them out of the list', async ({
  page,
  request,
}) => {
  // walk 40: one folder of 30 files pushed earlier imports, and their reasons, out of the 50 shown.
  const oldest = 'history-oldest';
  await importThroughApi(request, MALFORMED_JSONL, oldest);
  for (let n = 0; n < 50; n++) await importThroughApi(request, MALFORMED_JSONL, `history-${n}`);
  await page.goto('/import');
  const history = page.getByRole('region', { name: 'Other imports' });
  await expect(history.getByTestId('import-job')).toHaveCount(50);
  await expect(history.getByRole('article', { name: `Import into ${oldest}` })).toHaveCount(0);
  await history.getByRole('button', { name: 'Show 50 older imports' }).click();
  await expect(history.getByRole('article', { name: `Import into ${oldest}` })).toBeVisible();
  expect(await history.getByTestId('import-job').count()).toBeGreaterThan(50);
});
