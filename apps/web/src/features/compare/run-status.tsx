import type { SimulationResult } from '@terrarium/schema';
import { formatCount } from '../../app/format';
import { predictionFailed } from './summary';
import type { SimulationRun } from './use-simulation-runs';

/** What a finished run did: only predictions that came back count as simulated. */
export function doneText(result: SimulationResult): { text: string; failed: boolean } {
  const total = result.steps.length;
  const failures = result.steps.filter(predictionFailed);
  if (failures.length === 0) {
    return {
      text: `${formatCount(total)} ${total === 1 ? 'transition' : 'transitions'} simulated`,
      failed: false,
    };
  }
  const reason = failures[0]?.error ?? '';
  if (failures.length === total) {
    return {
      text: `no transition simulated: all ${formatCount(total)} predictions failed (${reason})`,
      failed: true,
    };
  }
  return {
    text: `${formatCount(total - failures.length)} of ${formatCount(total)} transitions simulated; ${formatCount(failures.length)} failed (${reason})`,
    failed: true,
  };
}

function DoneLine({ result }: { result: SimulationResult }) {
  const { text, failed } = doneText(result);
  return (
    <span
      className={failed ? 'status-error' : 'muted'}
      data-testid="run-done"
      role={failed ? 'alert' : undefined}
    >
      {text}
    </span>
  );
}

/** A line per chosen simulator: running, failed (with the server's message) or done. */
export function RunStatus({
  sims,
  runs,
}: {
  sims: readonly string[];
  runs: ReadonlyMap<string, SimulationRun>;
}) {
  const lines = sims.flatMap((sim) => {
    const state = runs.get(sim);
    return state ? [{ sim, state }] : [];
  });
  if (lines.length === 0) return null;
  return (
    <ul className="run-status" aria-live="polite">
      {lines.map(({ sim, state }) => (
        <li key={sim} data-sim={sim} data-status={state.status}>
          <span className="mono">{sim}</span>{' '}
          {state.status === 'running' && (
            <span className="spinner-text" role="status">
              <span className="spinner" aria-hidden="true" /> running…
            </span>
          )}
          {state.status === 'error' && (
            <span className="status-error" role="alert">
              failed: {state.message}
            </span>
          )}
          {state.status === 'done' && <DoneLine result={state.result} />}
        </li>
      ))}
    </ul>
  );
}
