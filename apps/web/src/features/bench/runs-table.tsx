import type { BenchRun, BenchRunListing } from '@terrarium/schema';
import { formatCount, formatUtc, plural } from '../../app/format';
import { Link } from '../../app/link';
import { judgeLabel, modeLabel, runCostText, runUsageText } from './format-bench';
import { SimName } from './sim-name';

export function runLabel(run: BenchRun): string {
  return `${run.sims.join(', ')} · ${formatUtc(run.createdAt)}`;
}

/**
 * A run's work units as the run page and the Benches page both say them, `1,933 done · 159 failed
 * · 2,092 total`, as the CLI does (`done 1933/2092 (159 failed)`): done counts the units that
 * succeeded only, so a run whose every unit is recorded but some failed never reads complete.
 */
export function RunCounts({
  run,
  testId,
}: {
  run: Pick<BenchRun, 'done' | 'failed' | 'total'>;
  testId: string;
}) {
  return (
    <span data-testid={testId}>
      {formatCount(run.done)} done ·{' '}
      <span className={run.failed > 0 ? 'status-error' : undefined}>
        {formatCount(run.failed)} failed
      </span>{' '}
      · {formatCount(run.total)} total
    </span>
  );
}

/** A bench's runs, newest first as the server lists them; each opens its leaderboard. */
export function RunsTable({ runs }: { runs: readonly BenchRunListing[] }) {
  if (runs.length === 0) return <p className="muted">No runs yet.</p>;
  return (
    <table className="data-table" data-testid="bench-runs">
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Version</th>
          <th scope="col">Simulators</th>
          <th scope="col">Mode</th>
          <th
            scope="col"
            title="The judge the run was started with, if any (hover for its endpoint)"
          >
            Judge
          </th>
          <th scope="col">Status</th>
          <th
            scope="col"
            className="num"
            title="Work units (an item for one simulator) done, failed (no prediction: left out of every mean) and in all, as the run page counts them"
          >
            Units
          </th>
          <th
            scope="col"
            className="num"
            title="What the run's simulator and judge calls cost together, by TERRARIUM_PRICING (hover a run for its tokens)"
          >
            Cost
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
                  score: null,
                  cell: null,
                  item: null,
                }}
                className="mono"
              >
                {run.id}
              </Link>
            </td>
            <td>v{run.benchVersion}</td>
            <td className="mono">
              {run.sims.map((sim, index) => (
                <span key={sim}>
                  {index > 0 && ', '}
                  <SimName sim={sim} />
                </span>
              ))}
            </td>
            <td>{modeLabel(run.mode)}</td>
            <td
              data-testid="run-judge"
              title={run.judge === null ? undefined : judgeLabel(run.judge)}
            >
              {run.judge === null ? '—' : `${run.judge.mode} · k=${run.judge.repeats}`}
              {run.missingVerdicts > 0 && (
                <>
                  {' · '}
                  <span
                    className="status-error"
                    data-testid="run-verdicts-missing"
                    title="Verdicts the judge did not give: its columns are missing them. Open the run to ask it again."
                  >
                    {plural(run.missingVerdicts, 'verdict')} missing
                  </span>
                </>
              )}
            </td>
            <td>
              <span className={`run-status run-status-${run.status}`}>{run.status}</span>
            </td>
            <td className="num">
              <RunCounts run={run} testId="run-units" />
            </td>
            <td className="num" data-testid="run-cost" title={runUsageText(run)}>
              {runCostText(run)}
            </td>
            <td>{formatUtc(run.createdAt, 'second')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
