import type { DatasetSummary } from '@terrarium/schema';
import { connect, disconnect, type GlobalOptions } from '../connect';
import { fetchDatasets } from '../server-client';

export interface DatasetsCommandOptions extends GlobalOptions {
  json?: boolean;
}

export async function runDatasets(options: DatasetsCommandOptions): Promise<void> {
  const target = await connect(options);
  let datasets: DatasetSummary[];
  try {
    datasets =
      target.kind === 'server'
        ? await fetchDatasets(target.url, target.token)
        : await target.store.listDatasets();
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
