import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import {
  sharedOverallSelector,
  type CellDelta,
  type ItemDelta,
  type LeaderboardCell,
  type ScoreSelector,
} from '@terrarium/schema';
import { formatDelta, formatScore100 } from '../../app/format';
import { Link } from '../../app/link';
import { QueryStatus } from '../../app/query-status';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import { formatDeltaInterval, formatHalfWidth } from './format-bench';
import { CellCount } from './leaderboard-table';
import { MetricSwitcher } from './metric-switcher';
import {
  absenceText,
  deltaDirection,
  deltaRows,
  deltaSignificance,
  shownDelta,
  orderRuns,
  settingDiffs,
  type RunScorers,
  type SettingDiff,
} from './run-comparison';
import { runLabel } from './runs-table';
import { SimName } from './sim-name';
import './bench.css';

function CellScore({ cell }: { cell: LeaderboardCell | null }) {
  if (cell === null) return <span className="muted">—</span>;
  const halfWidth = formatHalfWidth(cell);
  return (
    <>
      <span className="mono">{formatScore100(cell.mean)}</span>
      {halfWidth !== null && <span className="muted"> {halfWidth}</span>} <CellCount cell={cell} />
    </>
  );
}

/** The two runs compared, older first: which simulators each ran and whether it had a judge. */
interface ComparedRuns {
  before: RunScorers;
  after: RunScorers;
}

/** The cells of one score, both runs side by side, a row for every simulator of either run. */
export function DeltaTable({
  cells,
  score,
  runs,
}: {
  cells: readonly CellDelta[];
  score: ScoreSelector;
  runs: ComparedRuns;
}) {
  const rows = deltaRows(cells, score, [...runs.before.sims, ...runs.after.sims]);
  if (rows.length === 0) return <p className="muted">No cells for this score in either run.</p>;
  return (
    <table className="data-table delta-table" data-testid="delta-table">
      <thead>
        <tr>
          <th scope="col">Simulator</th>
          <th scope="col">Task</th>
          <th scope="col">Before (older run)</th>
          <th scope="col">After (newer run)</th>
          <th
            scope="col"
            className="num"
            title="After minus before, in points of 100, with the 95% interval of the difference: a paired bootstrap over the items both runs scored"
          >
            Δ [95% interval]
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.flatMap((row) =>
          row.cells.length === 0 ? (
            <NoCellsRow key={row.sim} sim={row.sim} score={score} runs={runs} />
          ) : (
            row.cells.map((cell, position) => {
              const direction = deltaDirection(cell);
              return (
                <tr
                  key={`${row.sim}\n${cell.task}`}
                  data-sim={row.sim}
                  data-task={cell.task}
                  data-direction={direction}
                  className={cell.significant ? `delta-separated delta-${direction}` : undefined}
                >
                  {position === 0 ? (
                    <th scope="row" rowSpan={row.cells.length} className="mono">
                      <SimName sim={row.sim} />
                    </th>
                  ) : null}
                  <td>{cell.task}</td>
                  <td>
                    <CellScore cell={cell.before} />
                  </td>
                  <td>
                    <CellScore cell={cell.after} />
                  </td>
                  <td className="num mono">
                    <span data-testid="delta">{formatDelta(shownDelta(cell))}</span>
                    {cell.deltaLow !== null && cell.deltaHigh !== null && (
                      <span className="muted" data-testid="delta-interval">
                        {' '}
                        {formatDeltaInterval(cell.deltaLow, cell.deltaHigh)}
                      </span>
                    )}
                    <DeltaFlag cell={cell} direction={direction} score={score} runs={runs} />
                  </td>
                </tr>
              );
            })
          ),
        )}
      </tbody>
    </table>
  );
}

const SIGNIFICANCE_TITLE = {
  significant:
    'Significant: the 95% interval of the difference, from a paired bootstrap over the items both runs scored, excludes 0',
  'not significant':
    'Not significant: the 95% interval of the difference (paired bootstrap over the same items) includes 0',
  'no interval': 'No interval of the difference (fewer than 2 items scored by both): cannot tell',
  'only before': 'Only the older run has this: nothing to compare it with',
  'only after': 'Only the newer run has this: nothing to compare it with',
  'other items':
    'The two runs scored different items here (a run canceled part way, a judge that failed on other items, another bench version or split): the means can differ by which items they cover alone, so no significance',
} as const;

/**
 * A simulator of either run with no cell of this score in both: a row still, saying why each run
 * has none (not in it, or no such scores, e.g. no judge), where it would otherwise vanish.
 */
function NoCellsRow({
  sim,
  score,
  runs,
}: {
  sim: string;
  score: ScoreSelector;
  runs: ComparedRuns;
}) {
  return (
    <tr data-sim={sim} data-direction="unknown">
      <th scope="row" className="mono">
        <SimName sim={sim} />
      </th>
      <td className="muted">—</td>
      <td>
        <CellScore cell={null} />
      </td>
      <td>
        <CellScore cell={null} />
      </td>
      <td className="num mono">
        <span data-testid="delta">—</span>{' '}
        <span
          className="muted"
          title="Neither run has this score for this simulator: nothing to compare"
          data-testid="delta-significance"
          data-significance="no cells"
        >
          {absenceText(runs.before, 'older', sim, score)};{' '}
          {absenceText(runs.after, 'newer', sim, score)}
        </span>
      </td>
    </tr>
  );
}

function DeltaFlag({
  cell,
  direction,
  score,
  runs,
}: {
  cell: CellDelta;
  direction: ReturnType<typeof deltaDirection>;
  score: ScoreSelector;
  runs: ComparedRuns;
}) {
  const significance = deltaSignificance(cell);
  return (
    <span
      className={significance === 'significant' ? 'delta-flag' : 'muted'}
      title={SIGNIFICANCE_TITLE[significance]}
      data-testid="delta-significance"
      data-significance={significance}
    >
      {' '}
      {significance === 'significant'
        ? `${direction === 'better' ? '▲' : '▼'} significant`
        : significance === 'only before'
          ? absenceText(runs.after, 'newer', cell.sim, score)
          : significance === 'only after'
            ? absenceText(runs.before, 'older', cell.sim, score)
            : significance === 'other items'
              ? `other items (n ${cell.before?.n ?? 0} vs ${cell.after?.n ?? 0})`
              : significance}
    </span>
  );
}

/** The settings the two runs differ in besides the simulators' outputs (mode, judge, version…). */
export function SettingDiffs({ diffs }: { diffs: readonly SettingDiff[] }) {
  if (diffs.length === 0) {
    return (
      <p className="muted" data-testid="setting-diffs">
        Both runs used the same settings.
      </p>
    );
  }
  return (
    <table className="data-table" data-testid="setting-diffs">
      <caption>The runs differ in</caption>
      <thead>
        <tr>
          <th scope="col">Setting</th>
          <th scope="col">Before (older run)</th>
          <th scope="col">After (newer run)</th>
        </tr>
      </thead>
      <tbody>
        {diffs.map((diff) => (
          <tr key={diff.setting} data-setting={diff.setting}>
            <th scope="row">{diff.setting}</th>
            <td>{diff.before}</td>
            <td>{diff.after}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ItemDeltas({
  title,
  items,
  runId,
  score,
  testId,
}: {
  title: string;
  items: readonly ItemDelta[];
  runId: string;
  score: ScoreSelector;
  testId: string;
}) {
  return (
    <section className="panel item-deltas" data-testid={testId}>
      <header className="panel-header">
        <h3>{title}</h3>
      </header>
      {items.length === 0 && <p className="muted panel-body">None.</p>}
      <ol className="panel-body">
        {items.map((entry) => (
          <li key={`${entry.sim}\n${entry.itemId}`}>
            <Link
              to={{
                page: 'bench-run',
                runId,
                score,
                cell: { sim: entry.sim, task: entry.task },
                item: entry.itemId,
              }}
              className="mono"
            >
              {entry.task}
            </Link>{' '}
            <span
              className="muted"
              title={`${entry.trajectory === null ? '' : `trajectory ${entry.trajectory} · `}item ${entry.itemId}`}
              data-testid="item-place"
            >
              {entry.action === '' ? (
                // An item no version of the bench holds any more: its id is all there is.
                <span className="mono">item {entry.itemId.slice(0, 10)}</span>
              ) : (
                <>
                  turn {entry.turnIndex + 1}/{entry.totalTurns}{' '}
                  <span className="mono item-delta-action">{entry.action}</span>
                </>
              )}
            </span>{' '}
            <span className="muted mono">{entry.sim}</span>{' '}
            <span className="mono">
              {formatScore100(entry.before)} → {formatScore100(entry.after)} (
              {formatDelta(entry.delta)})
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Two runs of one bench cell by cell (what got better, what worse) and item by item. */
export function RunComparePage({
  runId,
  otherRunId,
  score: chosenScore,
}: {
  runId: string;
  otherRunId: string | null;
  /** Null: the Overall both runs have (`sharedOverallSelector`). */
  score: ScoreSelector | null;
}) {
  const trpc = useTRPC();
  const base = useQuery(trpc.bench.run.queryOptions({ runId }));
  const bench = base.data?.bench;
  const siblings = useQuery({
    ...trpc.bench.runs.queryOptions({ bench: bench ?? '' }),
    enabled: bench !== undefined,
  });
  const board = useQuery(trpc.bench.leaderboard.queryOptions({ runId }));
  const others = (siblings.data ?? []).filter(
    (run) => run.id !== runId && run.benchVersion === base.data?.benchVersion,
  );
  const other = others.find((run) => run.id === otherRunId);
  // With one other run of this bench version there is nothing to choose: compare with it.
  const onlyOther = others.length === 1 ? others[0]?.id : undefined;
  useEffect(() => {
    if (otherRunId === null && onlyOther !== undefined) {
      navigate(
        { page: 'bench-compare', runId, otherRunId: onlyOther, score: chosenScore },
        'replace',
      );
    }
  }, [otherRunId, onlyOther, runId, chosenScore]);
  // Before is the older run and after the newer, whichever of the two the page was opened from.
  const ordered = base.data && other ? orderRuns(base.data, other) : null;
  const score = chosenScore ?? sharedOverallSelector(ordered ?? (base.data ? [base.data] : []));
  const comparison = useQuery({
    ...trpc.bench.compareRuns.queryOptions({
      before: ordered?.[0].id ?? '',
      after: ordered?.[1].id ?? '',
      score,
    }),
    enabled: ordered !== null,
  });
  const go = (next: { otherRunId?: string | null; score?: ScoreSelector }) =>
    navigate(
      {
        page: 'bench-compare',
        runId,
        otherRunId: next.otherRunId === undefined ? otherRunId : next.otherRunId,
        score: next.score ?? chosenScore,
      },
      'replace',
    );

  return (
    <div className="page bench-compare-page">
      <div className="breadcrumb">
        <Link to={{ page: 'benches' }}>Benches</Link> ›{' '}
        {base.data && (
          <>
            {base.data.bench} v{base.data.benchVersion} ›{' '}
          </>
        )}
        <Link to={{ page: 'bench-run', runId, score: chosenScore, cell: null, item: null }}>
          run <span className="mono">{runId}</span>
        </Link>{' '}
        › Compare runs
      </div>
      <QueryStatus label="the run" isPending={base.isPending} error={base.error} />
      <div className="leaderboard-controls">
        <div className="field">
          This run{' '}
          <span className="mono" data-testid="before-run">
            {base.data ? `${base.data.id} · ${runLabel(base.data)}` : runId}
          </span>
        </div>
        <label className="field">
          Compare with{' '}
          <select
            aria-label="Other run"
            data-testid="other-run"
            value={otherRunId ?? ''}
            onChange={(event) =>
              go({ otherRunId: event.target.value === '' ? null : event.target.value })
            }
          >
            <option value="">Choose a run of the same bench…</option>
            {others.map((run) => (
              <option key={run.id} value={run.id}>
                {run.id} · {runLabel(run)} · {run.status}
              </option>
            ))}
          </select>
        </label>
        {otherRunId !== null && (
          <Link to={{ page: 'bench-compare', runId: otherRunId, otherRunId: runId, score }}>
            Swap
          </Link>
        )}
        <MetricSwitcher
          cells={board.data?.cells ?? []}
          score={score}
          onChange={(next) => go({ score: next })}
        />
      </div>
      {siblings.data && others.length === 0 && (
        <p className="muted">This bench version has no other run to compare with.</p>
      )}
      {otherRunId !== null && siblings.data && other === undefined && (
        <p className="status status-error" role="alert" data-testid="other-run-missing">
          Run {otherRunId} is not another run of {base.data?.bench} v{base.data?.benchVersion}: only
          runs of the same bench version compare item by item. Choose one above.
        </p>
      )}
      {otherRunId !== null && other !== undefined && (
        <QueryStatus
          label="the comparison"
          isPending={comparison.isPending}
          error={comparison.error}
        />
      )}
      {comparison.data && ordered && (
        <>
          <p className="muted" data-testid="compare-order">
            Before: <span className="mono">{ordered[0].id}</span> ({runLabel(ordered[0])}) → after:{' '}
            <span className="mono">{ordered[1].id}</span> ({runLabel(ordered[1])}), ordered by start
            time.
          </p>
          <SettingDiffs diffs={settingDiffs(ordered[0], ordered[1])} />
          <DeltaTable cells={comparison.data.cells} score={score} runs={comparison.data} />
          <div className="item-delta-lists">
            <ItemDeltas
              title="Most improved"
              items={comparison.data.improved}
              runId={comparison.data.after.id}
              score={score}
              testId="most-improved"
            />
            <ItemDeltas
              title="Most regressed"
              items={comparison.data.regressed}
              runId={comparison.data.after.id}
              score={score}
              testId="most-regressed"
            />
          </div>
        </>
      )}
    </div>
  );
}
