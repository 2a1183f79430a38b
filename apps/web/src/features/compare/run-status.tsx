import type { SimulationRun } from './use-simulation-runs';

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
          {state.status === 'done' && (
            <span className="muted">{state.result.steps.length} transitions simulated</span>
          )}
        </li>
      ))}
    </ul>
  );
}
