import type { SimulationResult } from '@terrarium/schema';
import { Elapsed } from '../../app/elapsed';
import { formatCount } from '../../app/format';
import { predictionFailed } from './summary';
import { MAX_SERVER_STREAMS, type SimulationRun } from './use-simulation-runs';

/**
 * What a finished or stopped run did: only predictions that came back count as simulated. A
 * stopped run says how far it got of the `planned` transitions.
 */
export function doneText(
  result: SimulationResult,
  stopped: { planned: number | null } | null = null,
): { text: string; failed: boolean } {
  const total = result.steps.length;
  const failures = result.steps.filter(predictionFailed);
  if (stopped !== null) {
    const of = stopped.planned === null ? '' : ` of ${formatCount(stopped.planned)}`;
    const failed =
      failures.length === 0
        ? ''
        : `, ${formatCount(failures.length)} of them failed (${failures[0]?.error ?? ''})`;
    return {
      text: `stopped after ${formatCount(total)}${of} ${total === 1 && of === '' ? 'transition' : 'transitions'}${failed}`,
      failed: failures.length > 0,
    };
  }
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

function DoneLine({
  result,
  stopped = null,
}: {
  result: SimulationResult;
  stopped?: { planned: number | null } | null;
}) {
  const { text, failed } = doneText(result, stopped);
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

/**
 * A line per chosen simulator: running (how far, how long, and a way to stop it), failed (with
 * the server's message), stopped or done.
 */
export function RunStatus({
  sims,
  runs,
  onStop,
}: {
  sims: readonly string[];
  runs: ReadonlyMap<string, SimulationRun>;
  onStop: (sim: string) => void;
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
          {state.status === 'running' && state.waiting && (
            <>
              <span className="muted" role="status" data-testid="run-waiting">
                waiting: {MAX_SERVER_STREAMS} server runs stream at a time from this page
              </span>{' '}
              <button type="button" aria-label={`Stop ${sim}`} onClick={() => onStop(sim)}>
                Stop
              </button>
            </>
          )}
          {state.status === 'running' && !state.waiting && (
            <>
              <span className="spinner-text" role="status">
                <span className="spinner" aria-hidden="true" /> running:{' '}
                <span data-testid="run-progress">
                  {formatCount(state.done)} /{' '}
                  {state.total === null ? '…' : formatCount(state.total)}
                </span>{' '}
                transitions · <Elapsed startedAt={state.startedAt} />
              </span>{' '}
              <button type="button" aria-label={`Stop ${sim}`} onClick={() => onStop(sim)}>
                Stop
              </button>
            </>
          )}
          {state.status === 'error' && (
            <span className="status-error" role="alert">
              failed: {state.message}
            </span>
          )}
          {state.status === 'done' && <DoneLine result={state.result} />}
          {state.status === 'stopped' && (
            <DoneLine result={state.result} stopped={{ planned: state.total }} />
          )}
        </li>
      ))}
    </ul>
  );
}
