import { useQuery } from '@tanstack/react-query';
import { OBSERVATION_MAX_TOKENS } from '@terrarium/inference';
import type { ExecutionProviderChoice } from '@terrarium/inference/web';
import type { SimulatedStep } from '@terrarium/schema';
import { useState } from 'react';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import { formatScore } from '../../app/format';
import { actionLabel, formatLatency } from '../compare/format-run';
import { useBrowserSimulation } from './use-browser-simulation';
import { trajectoryName } from '../trajectories/trajectory-name';
import { metricDefinition } from '@terrarium/fidelity';
import { ModelSplitNote } from './model-split-note';

// A page of the list: the largest the server gives (trajectories.list).
const TRAJECTORIES_LISTED = 500;
const PREVIEW_CHARS = 160;
/** The headline score's one-line definition, as the leaderboard and Compare give it. */
const CONTENT_TITLE = metricDefinition('rule', 'content')?.definition;

function preview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

function mean(steps: readonly SimulatedStep[], metric: string): number | null {
  const values = steps.flatMap((step) => {
    const value = step.scores[metric];
    return typeof value === 'number' ? [value] : [];
  });
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * The bundled model run in this browser over a stored trajectory, open loop: each transition's
 * real observation beside the predicted one, with the rule scores the server computes.
 */
export function TrajectoryRun({ servedModels }: { servedModels: readonly string[] }) {
  const trpc = useTRPC();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [datasetId, setDatasetId] = useState('');
  const [trajectoryId, setTrajectoryId] = useState('');
  const [model, setModel] = useState(servedModels[0] ?? '');
  const [executionProvider, setExecutionProvider] = useState<ExecutionProviderChoice>('auto');
  const [maxSteps, setMaxSteps] = useState(10);
  // The budget the server and Compare decode with, so the scores are the ones they give.
  const [maxTokens, setMaxTokens] = useState(OBSERVATION_MAX_TOKENS);
  const trajectories = useQuery({
    ...trpc.trajectories.list.queryOptions({
      filter: { datasetId },
      offset: 0,
      limit: TRAJECTORIES_LISTED,
    }),
    enabled: datasetId !== '',
  });
  // In name order, numbers as numbers ("task 2" before "task 13"), not in import order.
  const simulable = (trajectories.data?.rows ?? [])
    .filter((row) => row.transitionCount > 0)
    .map((row) => ({ row, label: trajectoryName(row) }))
    .toSorted((a, b) =>
      `${a.label.name} ${a.label.detail ?? ''}`.localeCompare(
        `${b.label.name} ${b.label.detail ?? ''}`,
        undefined,
        { numeric: true },
      ),
    );
  const unlisted = (trajectories.data?.total ?? 0) - (trajectories.data?.rows.length ?? 0);
  const chosen = useQuery({
    ...trpc.trajectories.get.queryOptions({ trajectoryId }),
    enabled: trajectoryId !== '',
  });
  const simulation = useBrowserSimulation(trajectoryId);
  const running = simulation.run?.status === 'running';
  const steps = simulation.run?.status === 'done' ? simulation.run.result.steps : simulation.steps;

  return (
    <section className="panel playground" data-testid="trajectory-run">
      <header className="panel-header">
        <h3>Run in the browser on a trajectory</h3>
        <span className="muted">
          real vs predicted, step by step, scored as on the server
          {maxTokens < OBSERVATION_MAX_TOKENS &&
            ` (answers cut at ${maxTokens} tokens; the server and Compare decode up to ${OBSERVATION_MAX_TOKENS})`}
        </span>
      </header>
      <div className="panel-body">
        <QueryStatus label="datasets" isPending={datasets.isPending} error={datasets.error} />
        <form
          className="playground-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (trajectoryId === '' || model === '') return;
            simulation.start({
              source: { kind: 'served', name: model },
              executionProvider,
              maxSteps,
              maxTokens,
            });
          }}
        >
          <label>
            Dataset{' '}
            <select
              value={datasetId}
              data-testid="run-dataset"
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
              data-testid="run-trajectory"
              disabled={!trajectories.data}
              onChange={(event) => setTrajectoryId(event.target.value)}
            >
              <option value="">choose…</option>
              {/* A trajectory without transitions has nothing to predict. */}
              {simulable.map(({ row, label: { name, detail } }) => {
                // The name the trajectory list shows (task and trial; a tau2 id is a UUID).
                return (
                  <option key={row.id} value={row.id} title={row.externalId}>
                    {name}
                    {detail === null ? '' : ` ${detail}`} ({row.transitionCount}{' '}
                    {row.transitionCount === 1 ? 'transition' : 'transitions'})
                  </option>
                );
              })}
            </select>
          </label>
          {unlisted > 0 && (
            <span className="muted">
              the first {TRAJECTORIES_LISTED} of {trajectories.data?.total} listed
            </span>
          )}
          <label>
            Model{' '}
            <select value={model} onChange={(event) => setModel(event.target.value)}>
              {servedModels.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Runs on{' '}
            <select
              value={executionProvider}
              onChange={(event) => {
                const value = event.target.value;
                if (value === 'auto' || value === 'wasm' || value === 'webgpu') {
                  setExecutionProvider(value);
                }
              }}
            >
              <option value="auto">WebGPU if available, else wasm</option>
              <option value="webgpu">WebGPU</option>
              <option value="wasm">wasm (CPU)</option>
            </select>
          </label>
          <label>
            Transitions{' '}
            <input
              type="number"
              min={1}
              max={500}
              value={maxSteps}
              onChange={(event) => {
                const value = Math.trunc(Number(event.target.value));
                if (value >= 1) setMaxSteps(Math.min(value, 500));
              }}
            />
          </label>
          <label>
            Max tokens{' '}
            <input
              type="number"
              data-testid="run-max-tokens"
              min={1}
              max={OBSERVATION_MAX_TOKENS}
              value={maxTokens}
              onChange={(event) => {
                const value = Math.trunc(Number(event.target.value));
                if (value >= 1) setMaxTokens(Math.min(value, OBSERVATION_MAX_TOKENS));
              }}
            />
          </label>
          <button
            type="submit"
            className="primary"
            disabled={trajectoryId === '' || model === '' || running}
          >
            {running ? 'Running…' : 'Run in browser'}
          </button>
          {running && (
            <button type="button" onClick={simulation.stop}>
              Stop
            </button>
          )}
        </form>
        {chosen.data && model !== '' && <ModelSplitNote model={model} trajectory={chosen.data} />}
        {simulation.fallback !== null && (
          <p className="note" role="status" data-testid="trajectory-run-fallback">
            {simulation.fallback}
          </p>
        )}
        {simulation.run?.status === 'stopped' && (
          <p className="status muted" data-testid="trajectory-run-stopped">
            Stopped after {steps.length} {steps.length === 1 ? 'transition' : 'transitions'}.
          </p>
        )}
        {simulation.run?.status === 'error' && (
          <p className="status status-error" role="alert">
            Could not run: {simulation.run.message}
          </p>
        )}
        {steps.length > 0 && (
          <>
            <p data-testid="trajectory-run-summary">
              {steps.length} {steps.length === 1 ? 'transition' : 'transitions'} on{' '}
              <span className="mono">{steps[0]?.provenance.model ?? ''}</span>: mean content{' '}
              <strong>{formatScore(mean(steps, 'content'))}</strong>, token F1{' '}
              <strong>{formatScore(mean(steps, 'token-f1'))}</strong>, exact match{' '}
              <strong>{formatScore(mean(steps, 'exact-match'))}</strong>
            </p>
            <div className="table-scroll">
              <table className="data-table" aria-label="Browser predictions">
                <thead>
                  <tr>
                    <th scope="col">Step</th>
                    <th scope="col">Action</th>
                    <th scope="col">Real</th>
                    <th scope="col">Predicted (browser)</th>
                    <th scope="col" className="num" title={CONTENT_TITLE}>
                      Content
                    </th>
                    <th scope="col" className="num">
                      Token F1
                    </th>
                    <th scope="col" className="num">
                      Exact
                    </th>
                    <th scope="col" className="num">
                      Latency
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {steps.map((step) => (
                    <tr key={step.step} data-testid="browser-run-step" data-step={step.step + 1}>
                      <td>{step.step + 1}</td>
                      <td className="mono truncate">{actionLabel(step.action)}</td>
                      <td className="mono prediction-cell">{preview(step.real.content)}</td>
                      <td className="mono prediction-cell">
                        {step.error ?? preview(step.predicted.content)}
                      </td>
                      <td className="num" data-metric="content">
                        {formatScore(step.scores['content'])}
                      </td>
                      <td className="num" data-metric="token-f1">
                        {formatScore(step.scores['token-f1'])}
                      </td>
                      <td className="num" data-metric="exact-match">
                        {formatScore(step.scores['exact-match'])}
                      </td>
                      <td className="num">{formatLatency(step.latencyMs)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </div>
    </section>
  );
}
