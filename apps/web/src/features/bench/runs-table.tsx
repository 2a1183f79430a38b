import type { BenchRun } from '@terrarium/schema';
import { formatCount } from '../../app/format';
import { Link } from '../../app/link';
import { DEFAULT_SCORE } from '../../app/url-state';
import { modeLabel } from './format-bench';

export function runLabel(run: BenchRun): string {
  return `${run.sims.join(', ')} · ${run.createdAt.slice(0, 16).replace('T', ' ')}`;
}

/** A bench's runs, newest first as the server lists them; each opens its leaderboard. */
export function RunsTable({ runs }: { runs: readonly BenchRun[] }) {
  if (runs.length === 0) return <p className="muted">No runs yet.</p>;
  return (
    <table className="data-table" data-testid="bench-runs">
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Version</th>
          <th scope="col">Simulators</th>
          <th scope="col">Mode</th>
          <th scope="col">Status</th>
          <th scope="col" className="num" title="Units recorded (scored or failed) of all units">
            Recorded / total
          </th>
          <th scope="col">Started</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} data-run={run.id}>
            <td>
              <Link
                to={{
                  page: 'bench-run',
                  runId: run.id,
                  score: DEFAULT_SCORE,
                  cell: null,
                  item: null,
                }}
                className="mono"
              >
                {run.id}
              </Link>
            </td>
            <td>v{run.benchVersion}</td>
            <td className="mono">{run.sims.join(', ')}</td>
            <td>{modeLabel(run.mode)}</td>
            <td>
              <span className={`run-status run-status-${run.status}`}>{run.status}</span>
            </td>
            <td className="num">
              {formatCount(run.done + run.failed)} / {formatCount(run.total)}
              {run.failed > 0 && (
                <span className="status-error" data-testid="run-failed">
                  {' '}
                  · {formatCount(run.failed)} failed
                </span>
              )}
            </td>
            <td>{run.createdAt.slice(0, 19).replace('T', ' ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
