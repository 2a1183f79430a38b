import { findDataset, loadDataset, SimulatorError } from '@terrarium/api';
import {
  measureSufficiency,
  SufficiencyReport,
  trimReport,
  type Counts,
} from '@terrarium/executable-worlds';
import { measureSqlSufficiencyFromFiles } from '@terrarium/executable-worlds/node';
import { plural } from '@terrarium/schema';
import { CliError } from '../cli-error';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { authHeaders, errorMessageOf } from '../server-client';

export interface WorldsBuildOptions extends GlobalOptions {
  dataset: string;
  json?: boolean;
  /** commander's `--no-pool` sets this false. */
  pool?: boolean;
  /** Mismatches listed (with both texts) in `--json`; the counts always cover all. */
  mismatches?: number;
  /** SQL datasets: the MySQL dump the episodes ran on, and Spider task files naming each db. */
  sqlDump?: string;
  sqlTasks?: string[];
}

/**
 * `terrarium worlds build`: reconstructs an executable world per trajectory of a dataset, replays
 * the recorded actions in it and reports how many recorded observations come back exactly.
 */
export async function runWorldsBuild(options: WorldsBuildOptions): Promise<void> {
  const input = {
    dataset: options.dataset,
    pool: options.pool ?? true,
    maxMismatches: options.mismatches ?? 0,
  };
  const target = await connect(options);
  let report: SufficiencyReport;
  try {
    report = await sufficiencyOn(target, input, {
      ...(options.sqlDump === undefined ? {} : { dump: options.sqlDump }),
      tasks: options.sqlTasks ?? [],
    });
  } finally {
    await disconnect(target);
  }
  if (options.json)
    process.stdout.write(`${JSON.stringify(jsonOutput(report, input.maxMismatches > 0))}\n`);
  else process.stdout.write(sufficiencyTable(report));
}

interface Input {
  dataset: string;
  pool: boolean;
  maxMismatches: number;
}

async function sufficiencyOn(
  target: DataTarget,
  input: Input,
  sqlFiles: { dump?: string; tasks: string[] },
): Promise<SufficiencyReport> {
  if (target.kind === 'server') {
    if (sqlFiles.dump !== undefined)
      throw new CliError(
        `SQL worlds are built from files on this machine: stop the server at ${target.url} (it holds the data folder) and run again`,
      );
    return sufficiencyThroughServer(target.url, target.token, input);
  }
  try {
    const dataset = await findDataset(target.store, input.dataset, '--dataset');
    const trajectories = await loadDataset(target.store, dataset.id);
    // InterCode SQL episodes: replayed in a SQL world on the dump they ran on.
    const sql = trajectories.length > 0 && trajectories.every((t) => t.domain === 'database');
    if (sql && sqlFiles.dump === undefined)
      throw new CliError(
        `${dataset.name} holds SQL episodes: pass --sql-dump FILE (the MySQL dump they ran on, e.g. InterCode's ic_spider_dbs.sql) and --sql-tasks FILE for the Spider tasks naming each question's database`,
      );
    const report =
      sqlFiles.dump === undefined
        ? await measureSufficiency(trajectories, { dataset: dataset.name, pool: input.pool })
        : await measureSqlSufficiencyFromFiles(trajectories, dataset.name, {
            dump: sqlFiles.dump,
            tasks: sqlFiles.tasks,
          });
    return trimReport(report, { maxMismatches: input.maxMismatches, maxChars: 4000 });
  } catch (error) {
    if (error instanceof SimulatorError) throw new CliError(error.message);
    throw error;
  }
}

/** tRPC's answer envelope `{"result":{"data":…}}`, narrowed without a cast (the CLI has no zod). */
function trpcData(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('result' in body)) return undefined;
  const { result } = body;
  return typeof result === 'object' && result !== null && 'data' in result
    ? result.data
    : undefined;
}

async function sufficiencyThroughServer(
  serverUrl: string,
  token: string,
  input: Input,
): Promise<SufficiencyReport> {
  const url = new URL('/trpc/worlds.sufficiency', serverUrl);
  url.searchParams.set('input', JSON.stringify(input));
  const response = await fetch(url, { headers: authHeaders(token) });
  const body: unknown = await response.json().catch(() => null);
  const report = SufficiencyReport.safeParse(trpcData(body));
  if (!response.ok || !report.success) {
    const why = response.ok ? 'its answer was not a report' : errorMessageOf(body);
    throw new CliError(
      `the server at ${serverUrl} could not build worlds (${response.status}): ${why}`,
    );
  }
  return report.data;
}

/** `--json`: the shape (`dataset, worlds, transitions, exact, fallback, mismatch, byCommand`). */
export function jsonOutput(report: SufficiencyReport, withMismatches: boolean) {
  const { trajectories, ...totals } = report;
  return withMismatches
    ? {
        ...totals,
        mismatches: trajectories.flatMap((t) =>
          t.mismatches.map((m) => ({ trajectory: t.id, ...m })),
        ),
      }
    : totals;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

function row(name: string, counts: Counts): string[] {
  return [
    name,
    String(counts.transitions),
    String(counts.exact),
    String(counts.fallback),
    String(counts.mismatch),
    percent(counts.exact, counts.transitions - counts.fallback),
  ];
}

export function sufficiencyTable(report: SufficiencyReport): string {
  const header = ['command', 'transitions', 'exact', 'fallback', 'mismatch', 'exact of those run'];
  const families = Object.entries(report.byCommand).toSorted(
    ([a, x], [b, y]) => y.transitions - x.transitions || (a < b ? -1 : 1),
  );
  const rows = [
    header,
    row('(all)', report),
    ...families.map(([name, counts]) => row(name || '(empty)', counts)),
  ];
  const widths = header.map((_, column) =>
    Math.max(...rows.map((cells) => (cells[column] ?? '').length)),
  );
  const lines = rows.map((cells) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  '),
  );
  return (
    `${report.dataset}: ${plural(report.worlds, 'world')}, ${plural(report.transitions, 'transition')} replayed ` +
    `(${plural(report.skipped, 'harness step')} left out)\n${lines.join('\n')}\n`
  );
}
