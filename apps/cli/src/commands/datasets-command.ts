import { deleteDataset, type AppRouter, type DeletedDataset } from '@terrarium/api';
import { plural, seededRunsNote, type DatasetSummary } from '@terrarium/schema';
import { createTRPCClient, httpLink } from '@trpc/client';
import { CliError } from '../cli-error';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { authHeaders, fetchDatasets, fetchImportJobs, serverFailure } from '../server-client';

export interface DatasetsCommandOptions extends GlobalOptions {
  json?: boolean;
}

function listDatasets(target: DataTarget): Promise<DatasetSummary[]> {
  return target.kind === 'server'
    ? fetchDatasets(target.url, target.token)
    : target.store.listDatasets();
}

export async function runDatasets(options: DatasetsCommandOptions): Promise<void> {
  const target = await connect(options);
  let datasets: DatasetSummary[];
  try {
    datasets = await listDatasets(target);
  } finally {
    await disconnect(target);
  }
  if (options.json) process.stdout.write(`${JSON.stringify(datasets)}\n`);
  else process.stdout.write(datasetTable(datasets));
}

export function datasetTable(datasets: DatasetSummary[]): string {
  if (datasets.length === 0) return 'No datasets yet. Add one with `terrarium import PATH`.\n';
  const header = [
    'name',
    'trajectories',
    'transitions',
    'steps',
    'quarantined',
    'formats',
    'created',
  ];
  const rows = datasets.map((dataset) => [
    dataset.name,
    String(dataset.trajectories),
    String(dataset.transitions),
    String(dataset.steps),
    String(dataset.quarantined),
    dataset.formats.join(','),
    dataset.createdAt,
  ]);
  const numeric = new Set([1, 2, 3, 4]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const render = (cells: string[]) =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? cell.length;
        return numeric.has(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(render).join('\n')}\n`;
}

export interface DatasetsDeleteOptions extends GlobalOptions {
  yes?: boolean;
  json?: boolean;
}

/**
 * `datasets delete NAME`: the dataset named (else the one with that id), whole. Without `--yes`
 * it only says what would go, so a mistyped command in a script deletes nothing.
 */
export async function runDatasetsDelete(
  nameOrId: string,
  options: DatasetsDeleteOptions,
): Promise<void> {
  const target = await connect(options);
  let result: DeletedDataset;
  try {
    const datasets = await listDatasets(target);
    const dataset =
      datasets.find((found) => found.name === nameOrId) ??
      datasets.find((found) => found.id === nameOrId);
    if (dataset === undefined) {
      // A first import into a name shows the dataset only once it is whole: said as such, not as
      // a name that does not exist (walk 40 B8).
      const importing = (await importJobsOn(target)).find(
        (job) => job.dataset === nameOrId && (job.status === 'queued' || job.status === 'running'),
      );
      if (importing !== undefined) {
        throw new CliError(
          `dataset ${nameOrId} is still being imported (${plural(importing.trajectories, 'trajectory', 'trajectories')} stored so far): ` +
            'it appears when the import ends (Ctrl-C where it runs, or Cancel on the Import page, keeps nothing of it)',
        );
      }
      const names = datasets.map((found) => found.name).join(', ');
      throw new CliError(
        `no dataset ${nameOrId} (${names === '' ? 'there are none' : `datasets: ${names}`})`,
      );
    }
    if (options.yes !== true) {
      const seeded = await curriculumRunsSeededBy(target, dataset.name);
      throw new CliError(
        `this deletes dataset ${dataset.name}: ${plural(dataset.trajectories, 'trajectory', 'trajectories')} with their ` +
          'steps and search index (benches built from it keep their items); ' +
          (seeded.length === 0 ? '' : `${seededRunsNote(seeded)}; `) +
          'add --yes to delete it',
      );
    }
    result = await deleteOn(target, dataset.id);
  } finally {
    await disconnect(target);
  }
  process.stdout.write(
    options.json
      ? `${JSON.stringify(result)}\n`
      : `deleted dataset ${result.deleted} (${plural(result.trajectories, 'trajectory', 'trajectories')})\n`,
  );
}

/** The curriculum runs seeded from dataset `name` (their tasks are rebuilt from its data). */
async function curriculumRunsSeededBy(target: DataTarget, name: string): Promise<string[]> {
  const runs =
    target.kind === 'store'
      ? await target.store.listCurriculumRuns()
      : await createTRPCClient<AppRouter>({
          links: [httpLink({ url: `${target.url}/trpc`, headers: authHeaders(target.token) })],
        })
          .curriculum.list.query()
          .catch((error: unknown) => {
            throw serverFailure(error, target.url);
          });
  return runs.filter((run) => run.dataset === name).map((run) => run.id);
}

/** The newest import jobs of the store, wherever it is. */
async function importJobsOn(
  target: DataTarget,
): Promise<{ dataset: string; status: string; trajectories: number }[]> {
  return target.kind === 'store'
    ? target.store.listImportJobs(200)
    : fetchImportJobs(target.url, target.token);
}

async function deleteOn(target: DataTarget, datasetId: string): Promise<DeletedDataset> {
  if (target.kind === 'store') {
    try {
      return await deleteDataset(target.store, datasetId);
    } catch (error) {
      // Refusals (an import still running) are the user's to act on, not a crash.
      if (error instanceof Error && error.name === 'TRPCError') throw new CliError(error.message);
      throw error;
    }
  }
  const trpc = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${target.url}/trpc`, headers: authHeaders(target.token) })],
  });
  try {
    return await trpc.datasets.delete.mutate({ datasetId });
  } catch (error) {
    throw serverFailure(error, target.url);
  }
}
