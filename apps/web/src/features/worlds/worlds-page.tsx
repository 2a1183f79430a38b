import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { formatCount, formatPercent } from '../../app/format';
import { Link } from '../../app/link';
import { QueryStatus } from '../../app/query-status';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import { TextDiffView } from '../compare/observation-diff';
import { diffText } from '../compare/text-diff';
import '../compare/compare.css';
import './worlds.css';
import { invisibleDifference } from './invisible-difference';
import { useWorldsReport } from './use-worlds-report';
import { TRANSITIONS_TITLE } from '../../app/count-titles';

/** Mismatches listed at most, for all families or for the one chosen. */
const MISMATCHES_SHOWN = 100;
/** Mismatches fetched with the report: up to MISMATCHES_SHOWN of each family, this many in all. */
const MISMATCHES_FETCHED = 1_000;

/** The family the report files prose and blank actions under (`NOT_A_COMMAND` of the replay). */
const NOT_A_COMMAND = '(not a command)';

/** Domains whose actions are shell commands, the steps a world replays. */
const SHELL_DOMAINS: ReadonlySet<string> = new Set(['terminal', 'swe', 'os']);

interface Counts {
  transitions: number;
  exact: number;
  fallback: number;
  mismatch: number;
}

function share(part: number, whole: number): string {
  return whole === 0 ? '–' : formatPercent(part / whole);
}

function CountCells({ counts }: { counts: Counts }) {
  return (
    <>
      <td className="num">{formatCount(counts.transitions)}</td>
      <td className="num">{formatCount(counts.exact)}</td>
      <td className="num">{formatCount(counts.fallback)}</td>
      <td className="num">{formatCount(counts.mismatch)}</td>
      <td className="num">{share(counts.exact, counts.transitions - counts.fallback)}</td>
    </>
  );
}

const HEAD = (
  <>
    <th className="num" title={TRANSITIONS_TITLE}>
      Transitions
    </th>
    <th className="num">Exact</th>
    <th
      className="num"
      title="Commands the world's shell could not run itself: a program it does not have (a fallback answered) or an option it lacks (it refused one the real program ran), so they say nothing about the world"
    >
      Fallback
    </th>
    <th className="num">Mismatch</th>
    <th
      className="num"
      title="exact ÷ (transitions − fallback): of the commands the world ran itself"
    >
      Exact of those run
    </th>
  </>
);

function Diff({ expected, actual }: { expected: string; actual: string }) {
  const diff = diffText(expected, actual);
  const invisible = invisibleDifference(expected, actual);
  return (
    <>
      {invisible !== null && (
        <p className="muted" data-testid="whitespace-difference">
          Differs only in white space: recorded <code>{invisible.expected}</code>, world{' '}
          <code>{invisible.actual}</code>
        </p>
      )}
      {diff.ok ? <TextDiffView lines={diff.lines} /> : <p className="muted">{diff.reason}</p>}
    </>
  );
}

/**
 * Sufficiency of executable worlds rebuilt from a dataset: how many recorded observations the
 * reconstructed world reproduces byte for byte, per command family, with each mismatch diffed
 * (recorded − / world +).
 */
export function WorldsPage({ datasetId: chosen }: { datasetId: string | null }) {
  const trpc = useTRPC();
  // Read again at each visit (one row per dataset): its counts say whether a report is outdated.
  const datasets = useQuery({ ...trpc.datasets.list.queryOptions(), staleTime: 0 });
  const [family, setFamily] = useState<string | null>(null);
  // Worlds replay shell commands: only datasets with shell steps are offered (and one a link
  // names), and the page opens on the first of them rather than on an empty choice.
  // A link may name the dataset as the CLI does (walk 43: `?dataset=intercode-bash` showed its
  // worlds under another dataset's name in the picker).
  const linked = (datasets.data ?? []).find(
    (dataset) => dataset.id === chosen || dataset.name === chosen,
  );
  const offered = (datasets.data ?? []).filter(
    (dataset) => dataset === linked || dataset.domains.some((domain) => SHELL_DOMAINS.has(domain)),
  );
  const datasetId = linked?.id ?? chosen ?? offered[0]?.id ?? null;
  const current = offered.find((dataset) => dataset.id === datasetId);
  // A dataset of tool calls (tau-bench) has no shell commands to replay: the page says so rather
  // than replaying nothing and reporting "0 transitions replayed".
  const shell = current?.domains.some((domain) => SHELL_DOMAINS.has(domain)) ?? false;
  const { query: report, progress } = useWorldsReport(
    {
      dataset: datasetId ?? '',
      maxMismatches: MISMATCHES_FETCHED,
      perFamily: MISMATCHES_SHOWN,
      outcome: 'mismatch',
    },
    // Only once the dataset is known to have shell steps: a tool dataset is never replayed.
    shell,
  );
  const data = shell ? report.data : undefined;
  // An import or a delete since the measure (from the CLI, say) changes the dataset's trajectory
  // count: the figures are measured again rather than shown as if current.
  const outdated =
    data !== undefined && current !== undefined && current.trajectories !== data.worlds;
  const { refetch, isFetching } = report;
  useEffect(() => {
    if (outdated && !isFetching) void refetch();
  }, [outdated, isFetching, refetch]);
  const families = data
    ? Object.entries(data.byCommand).toSorted(([, a], [, b]) => b.transitions - a.transitions)
    : [];
  const mismatches = data
    ? data.trajectories.flatMap((trajectory) =>
        trajectory.mismatches
          .filter(
            (check) => check.outcome === 'mismatch' && (family === null || check.family === family),
          )
          .map((check) => ({ trajectoryId: trajectory.id, name: trajectory.name, ...check })),
      )
    : [];
  return (
    <div className="page worlds-page">
      <div className="page-header">
        <h1>Executable worlds</h1>
      </div>
      <p className="muted">
        Each trajectory's workspace is rebuilt from what its recorded commands showed, then its
        actions are replayed in a real shell (just-bash) over that workspace.
      </p>
      <label>
        Dataset{' '}
        <select
          data-testid="worlds-dataset"
          value={datasetId ?? ''}
          onChange={(event) => navigate({ page: 'worlds', datasetId: event.target.value || null })}
        >
          {datasetId === null && <option value="">Choose…</option>}
          {offered.map((dataset) => (
            <option key={dataset.id} value={dataset.id}>
              {dataset.name}
            </option>
          ))}
        </select>
      </label>
      {datasets.data !== undefined && offered.length === 0 && (
        <p className="note" data-testid="worlds-none">
          No dataset has shell steps yet. Worlds are rebuilt from terminal and SWE-agent
          trajectories: import some on the Import page (the demo's are in demo/data/swe-agent).
        </p>
      )}
      {datasets.data !== undefined && chosen !== null && linked === undefined && (
        <p className="note" data-testid="worlds-unknown">
          No dataset {chosen}: choose one above.
        </p>
      )}
      {current !== undefined && !shell && (
        <p className="note" data-testid="worlds-not-shell">
          {current.name} has no shell commands to replay
          {current.domains.includes('tool')
            ? ': its tool calls become tool worlds, which answer from the recorded responses over the benchmark\'s database (the README\'s "Executable worlds" section tells how to run them)'
            : ''}
          . This page measures worlds rebuilt from terminal and SWE-agent trajectories.
        </p>
      )}
      {report.isFetching && (
        <p className="status" data-testid="worlds-progress">
          {progress === null ? (
            <>Measuring {current?.name ?? 'the dataset'}…</>
          ) : progress.done === 0 ? (
            <>
              Loading {formatCount(progress.of)} trajectories of {current?.name ?? 'the dataset'}…
            </>
          ) : (
            <>
              Replaying worlds: {formatCount(progress.done)} of {formatCount(progress.of)}…{' '}
              <progress value={progress.done} max={progress.of} />
            </>
          )}
        </p>
      )}
      <QueryStatus label="worlds" isPending={false} error={report.error} />
      {data && (
        <>
          {outdated && (
            <p className="note" data-testid="worlds-outdated">
              The dataset changed since these figures were measured; measuring it again…
            </p>
          )}
          <p data-testid="worlds-summary">
            {formatCount(data.worlds)} worlds, {formatCount(data.transitions)} transitions replayed:{' '}
            <strong>{formatCount(data.exact)} exact</strong>, {formatCount(data.fallback)} fallback,{' '}
            {formatCount(data.mismatch)} mismatch ({formatCount(data.skipped)} harness steps left
            out).
          </p>
          <p className="muted" data-testid="worlds-legend">
            Exact: the world's shell ran the recorded command and printed the recorded output byte
            for byte. Fallback: the shell could not run it, for a program it does not have (a
            fallback answered) or an option it lacks (it refused one the real program ran, e.g.{' '}
            <code>uniq -w</code>); those say nothing about the world. Mismatch: it ran and printed
            something else. Actions that are no command (prose, blank lines) count under{' '}
            {NOT_A_COMMAND}, as the shell took them.
            {data.transitions === 0 &&
              ' No transition here is a shell command: executable worlds are rebuilt from terminal and SWE-agent trajectories.'}
          </p>
          <table className="data-table" data-testid="worlds-families">
            <thead>
              <tr>
                <th>Command</th>
                {HEAD}
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  <button type="button" className="link-button" onClick={() => setFamily(null)}>
                    (all)
                  </button>
                </td>
                <CountCells counts={data} />
              </tr>
              {families.map(([name, counts]) => (
                <tr key={name} className={name === family ? 'selected' : undefined}>
                  <td>
                    <button type="button" className="link-button" onClick={() => setFamily(name)}>
                      {name || '(empty)'}
                    </button>
                  </td>
                  <CountCells counts={counts} />
                </tr>
              ))}
            </tbody>
          </table>
          <h2 data-testid="worlds-mismatches-heading">
            Mismatches{family === null ? '' : ` of ${family}`} (
            {formatCount(Math.min(mismatches.length, MISMATCHES_SHOWN))} of{' '}
            {formatCount(family === null ? data.mismatch : (data.byCommand[family]?.mismatch ?? 0))}{' '}
            shown)
          </h2>
          <ol className="worlds-mismatches" data-testid="worlds-mismatches">
            {mismatches.slice(0, MISMATCHES_SHOWN).map((check) => (
              <li key={`${check.trajectoryId} ${check.step}`}>
                <div className="worlds-command">
                  <code>{check.command}</code>{' '}
                  <span className="muted">
                    step {check.step + 1} of{' '}
                    {datasetId === null ? (
                      check.name
                    ) : (
                      <Link
                        to={{
                          page: 'replay',
                          datasetId,
                          trajectoryId: check.trajectoryId,
                          step: check.step,
                        }}
                      >
                        {check.name}
                      </Link>
                    )}
                  </span>
                </div>
                <Diff expected={check.expected} actual={check.actual} />
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
