import { useQuery } from '@tanstack/react-query';
import type { CellDelta, ItemDelta, LeaderboardCell, ScoreSelector } from '@terrarium/schema';
import { Link } from '../../app/link';
import { QueryStatus } from '../../app/query-status';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import { formatDelta, formatHalfWidth, formatScore100 } from './format-bench';
import { MetricSwitcher } from './metric-switcher';
import { deltaDirection, deltaRows } from './run-comparison';
import { runLabel } from './runs-table';
import './bench.css';

function CellScore({ cell }: { cell: LeaderboardCell | null }) {
  if (cell === null) return <span className="muted">—</span>;
  const halfWidth = formatHalfWidth(cell);
  return (
    <>
      <span className="mono">{formatScore100(cell.mean)}</span>
      {halfWidth !== null && <span className="muted"> {halfWidth}</span>}
      <span className="muted"> n={cell.n}</span>
    </>
  );
}

function DeltaTable({
  cells,
  score,
  sims,
}: {
  cells: readonly CellDelta[];
  score: ScoreSelector;
  sims: readonly string[];
}) {
  const rows = deltaRows(cells, score, sims);
  if (rows.length === 0) return <p className="muted">No cells for this score in either run.</p>;
  return (
    <table className="data-table delta-table" data-testid="delta-table">
      <thead>
        <tr>
          <th scope="col">Simulator</th>
          <th scope="col">Task</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
          <th scope="col" className="num">
            Δ
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.flatMap((row) =>
          row.cells.map((cell, position) => {
            const direction = deltaDirection(cell);
            return (
              <tr
                key={`${row.sim}\n${cell.task}`}
                data-sim={row.sim}
                data-task={cell.task}
                data-direction={direction}
                className={cell.separated ? `delta-separated delta-${direction}` : undefined}
              >
                {position === 0 ? (
                  <th scope="row" rowSpan={row.cells.length} className="mono">
                    {row.sim}
                  </th>
                ) : null}
                <td>{cell.task}</td>
                <td>
                  <CellScore cell={cell.before} />
                </td>
                <td>
                  <CellScore cell={cell.after} />
                </td>
                <td className="num mono" data-testid="delta">
                  {formatDelta(cell.delta)}
                  {cell.separated && (
                    <span className="delta-flag" title="The 95% intervals do not overlap">
                      {' '}
                      {direction === 'better' ? '▲' : '▼'} separated
                    </span>
                  )}
                </td>
              </tr>
            );
          }),
        )}
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
            <span className="muted mono" title={entry.itemId}>
              {entry.itemId.slice(0, 10)}
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
  score,
}: {
  runId: string;
  otherRunId: string | null;
  score: ScoreSelector;
}) {
  const trpc = useTRPC();
  const base = useQuery(trpc.bench.run.queryOptions({ runId }));
  const bench = base.data?.bench;
  const siblings = useQuery({
    ...trpc.bench.runs.queryOptions({ bench: bench ?? '' }),
    enabled: bench !== undefined,
  });
  const board = useQuery(trpc.bench.leaderboard.queryOptions({ runId }));
  const comparison = useQuery({
    ...trpc.bench.compareRuns.queryOptions({ before: runId, after: otherRunId ?? '', score }),
    enabled: otherRunId !== null,
  });
  const others = (siblings.data ?? []).filter(
    (run) => run.id !== runId && run.benchVersion === base.data?.benchVersion,
  );
  const go = (next: { otherRunId?: string | null; score?: ScoreSelector }) =>
    navigate(
      {
        page: 'bench-compare',
        runId,
        otherRunId: next.otherRunId === undefined ? otherRunId : next.otherRunId,
        score: next.score ?? score,
      },
      'replace',
    );

  return (
    <div className="page bench-compare-page">
      <div className="breadcrumb">
        <Link to={{ page: 'benches' }}>Benches</Link> ›{' '}
        <Link to={{ page: 'bench-run', runId, score, cell: null, item: null }}>
          <span className="mono">{runId}</span>
        </Link>{' '}
        › Compare runs
      </div>
      <QueryStatus label="the run" isPending={base.isPending} error={base.error} />
      <div className="leaderboard-controls">
        <div className="field">
          Before{' '}
          <span className="mono" data-testid="before-run">
            {base.data ? `${base.data.id} · ${runLabel(base.data)}` : runId}
          </span>
        </div>
        <label className="field">
          After{' '}
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
      {otherRunId !== null && (
        <QueryStatus
          label="the comparison"
          isPending={comparison.isPending}
          error={comparison.error}
        />
      )}
      {comparison.data && (
        <>
          <DeltaTable
            cells={comparison.data.cells}
            score={score}
            sims={[...new Set([...comparison.data.before.sims, ...comparison.data.after.sims])]}
          />
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
