import { formatCount, formatScore } from '../../app/format';
import { SimName } from '../bench/sim-name';
import { formatLatency, formatPercent } from './format-run';
import { metricDescription, metricLabel, orderMetrics, type SimulationSummary } from './summary';

/**
 * Per simulator: the mean of each score over the steps, cache hit rate, latency and tokens. A run
 * its user stopped (`stopped`: simulator → the transitions it was to simulate) says so: its means
 * cover the steps it reached.
 */
export function SummaryTable({
  summaries,
  stopped = new Map(),
  splitNoteShown = false,
}: {
  summaries: readonly SimulationSummary[];
  stopped?: ReadonlyMap<string, number | null>;
  /** The page shows the model's split note, which says more than its general tag. */
  splitNoteShown?: boolean;
}) {
  const metrics = orderMetrics(summaries.flatMap((summary) => Object.keys(summary.meanScores)));
  return (
    <div className="table-scroll">
      <table className="data-table compare-summary" data-testid="compare-summary">
        <thead>
          <tr>
            <th scope="col">Simulator</th>
            <th scope="col" title="Predictions that came back, of the steps asked for">
              Simulated
            </th>
            <th scope="col" title="Predictions that failed (endpoint down, timeout…): never scored">
              Failed
            </th>
            {metrics.map((id) => (
              <th key={id} scope="col" title={metricDescription(id)}>
                {metricLabel(id)}
              </th>
            ))}
            <th
              scope="col"
              title="Share of predictions answered from a recorded transition with the same history and action (replay, or a cache in front of a model), among the predictions that say; a miss found none"
            >
              Cache hits
            </th>
            <th
              scope="col"
              title="Mean time from asking for a prediction to having it, over the predictions that came back"
            >
              Mean latency
            </th>
            <th
              scope="col"
              title="Prompt and completion tokens the simulator's model reported, over every prediction (none for replay and retrieval)"
            >
              Tokens in / out
            </th>
          </tr>
        </thead>
        <tbody>
          {summaries.map((summary) => (
            <tr key={summary.sim} data-sim={summary.sim}>
              <th scope="row" className="mono">
                <SimName sim={summary.sim} split={splitNoteShown} />
              </th>
              <td data-testid="summary-simulated">
                {formatCount(summary.simulated)} / {formatCount(summary.steps)}
                {stopped.has(summary.sim) && (
                  <span className="muted">
                    {' '}
                    (stopped
                    {(stopped.get(summary.sim) ?? null) === null
                      ? ''
                      : ` of ${formatCount(stopped.get(summary.sim) ?? 0)}`}
                    )
                  </span>
                )}
              </td>
              <td>{formatCount(summary.errors)}</td>
              {metrics.map((id) => (
                <td key={id} className="mono" data-metric={id}>
                  {formatScore(summary.meanScores[id])}
                </td>
              ))}
              <td>{formatPercent(summary.hitRate)}</td>
              <td>{formatLatency(summary.meanLatencyMs)}</td>
              <td>
                {formatCount(summary.inputTokens)} / {formatCount(summary.outputTokens)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
