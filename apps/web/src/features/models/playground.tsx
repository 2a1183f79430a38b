import { useMutation, useQuery } from '@tanstack/react-query';
import { SimSpec } from '@terrarium/schema';
import { useState } from 'react';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import { SimPrediction } from '../compare/sim-prediction';
import type { SimulatorOption } from '../compare/sim-picker';
import { MAX_SIMULATED_STEPS } from '../compare/use-simulation-runs';
import { ObservationView } from '../observations/observation-view';
import { ActionView } from '../replay/action-view';
import '../compare/compare.css';

const TRAJECTORIES_LISTED = 100;

/**
 * One prediction: pick a stored trajectory, a transition in it and a simulator. The server
 * simulates the trajectory up to that transition (open loop, real history), and the last
 * prediction is shown against the real observation.
 */
export function Playground({ available }: { available: readonly SimulatorOption[] }) {
  const trpc = useTRPC();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [datasetId, setDatasetId] = useState('');
  const [trajectoryId, setTrajectoryId] = useState('');
  const [transition, setTransition] = useState(1);
  const [sim, setSim] = useState('retrieval');
  const trajectories = useQuery({
    ...trpc.trajectories.list.queryOptions({
      filter: { datasetId },
      offset: 0,
      limit: TRAJECTORIES_LISTED,
    }),
    enabled: datasetId !== '',
  });
  const simulation = useMutation(trpc.simulate.run.mutationOptions());
  const chosen = trajectories.data?.rows.find((row) => row.id === trajectoryId);
  const transitions = Math.min(chosen?.transitionCount ?? 0, MAX_SIMULATED_STEPS);
  const simValid = SimSpec.safeParse(sim).success;
  const last = simulation.data?.steps.at(-1);

  return (
    <section className="panel playground" data-testid="playground">
      <header className="panel-header">
        <h3>Playground</h3>
        <span className="muted">one transition, predicted on the server</span>
      </header>
      <div className="panel-body">
        <QueryStatus label="datasets" isPending={datasets.isPending} error={datasets.error} />
        <form
          className="playground-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (chosen && simValid) {
              simulation.mutate({ trajectoryId: chosen.id, sim, maxSteps: transition });
            }
          }}
        >
          <label>
            Dataset{' '}
            <select
              value={datasetId}
              onChange={(event) => {
                setDatasetId(event.target.value);
                setTrajectoryId('');
              }}
            >
              <option value="">choose…</option>
              {datasets.data?.map((dataset) => (
                <option key={dataset.id} value={dataset.id}>
                  {dataset.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Trajectory{' '}
            <select
              value={trajectoryId}
              disabled={!trajectories.data}
              onChange={(event) => {
                setTrajectoryId(event.target.value);
                setTransition(1);
              }}
            >
              <option value="">choose…</option>
              {trajectories.data?.rows.map((row) => (
                <option key={row.id} value={row.id}>
                  {row.externalId} ({row.transitionCount} transitions)
                </option>
              ))}
            </select>
          </label>
          <label>
            Transition{' '}
            <input
              type="number"
              min={1}
              max={Math.max(transitions, 1)}
              value={transition}
              onChange={(event) => {
                const value = Math.trunc(Number(event.target.value));
                if (value >= 1) setTransition(Math.min(value, Math.max(transitions, 1)));
              }}
            />
          </label>
          <label>
            Simulator{' '}
            <input
              list="playground-sims"
              className="mono"
              value={sim}
              onChange={(event) => setSim(event.target.value)}
            />
            <datalist id="playground-sims">
              {available.map((option) => (
                <option key={option.spec} value={option.spec}>
                  {option.label}
                </option>
              ))}
            </datalist>
          </label>
          <button
            type="submit"
            className="primary"
            disabled={!chosen || transitions === 0 || !simValid || simulation.isPending}
          >
            {simulation.isPending ? 'Predicting…' : 'Predict'}
          </button>
        </form>
        {simulation.error && (
          <p className="status status-error" role="alert">
            Could not simulate: {simulation.error.message}
          </p>
        )}
        {simulation.data && !last && <p className="muted">The simulator returned no step.</p>}
        {last && (
          <div className="compare-detail">
            <ActionView action={last.action} />
            <div className="compare-columns">
              <div className="compare-real">
                <ObservationView observation={last.real} />
              </div>
              <SimPrediction sim={simulation.data?.sim ?? sim} simulated={last} />
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
