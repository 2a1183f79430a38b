import { useQuery } from '@tanstack/react-query';
import { BUNDLED_MODEL_NAME, trainingDataNote, type SimulationResult } from '@terrarium/schema';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { formatCount } from '../../app/format';
import { Link } from '../../app/link';
import { TrajectoryHeading, trajectoryCrumb } from '../trajectories/trajectory-heading';
import { QueryStatus } from '../../app/query-status';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { ObservationView } from '../observations/observation-view';
import { ActionView } from '../replay/action-view';
import { stepAfter, type ReplayCommand } from '../replay/replay-keys';
import { useReplayKeyboard } from '../replay/use-replay-keyboard';
import { ForkEditor } from './fork-editor';
import { forkSims } from './fork-sims';
import { RunStatus } from './run-status';
import { BUNDLED_BROWSER_SIM } from '../models/browser-sim-spec';
import { SimPicker, type SimulatorOption } from './sim-picker';
import { SimPrediction } from './sim-prediction';
import { StepTable } from './step-table';
import {
  alignSteps,
  scoredPredictions,
  summarizeSimulation,
  worstSteps,
  type ComparedStep,
} from './summary';
import { SummaryTable } from './summary-table';
import type { BenchItemRef } from '../../app/url-state';
import { ItemRerun } from '../bench/item-rerun';
import { MAX_SIMULATED_STEPS, useSimulationRuns } from './use-simulation-runs';
import { WorstSteps } from './worst-steps';
import { linkedSimsToRun } from './linked-sims';
import './compare.css';
import { ModelSplitNote } from '../models/model-split-note';

const WORST_STEPS_SHOWN = 10;
const DEFAULT_MAX_STEPS = 100;

/** The row the URL's step names, else the first row after it, else the last row. */
function rowIndexFor(rows: readonly ComparedStep[], step: number): number {
  if (rows.length === 0) return 0;
  const at = rows.findIndex((row) => row.step >= step);
  return at === -1 ? rows.length - 1 : at;
}

function StepComparison({
  row,
  sims,
  trajectoryId,
  available,
  stepCount,
}: {
  row: ComparedStep;
  sims: readonly string[];
  trajectoryId: string;
  available: readonly SimulatorOption[];
  stepCount: number | null;
}) {
  const [editing, setEditing] = useState(false);
  return (
    <article className="compare-detail" aria-label={`Step ${row.step + 1}`}>
      <div className="step-meta">
        <span className={`actor actor-${row.base.actor}`}>{row.base.actor}</span>
        <span className="muted">Step {row.step + 1}</span>
        <button
          type="button"
          className="spacer-left"
          data-testid="what-if"
          aria-expanded={editing}
          title="Edit this action and let a simulator continue the trajectory from here"
          onClick={() => setEditing((open) => !open)}
        >
          What if…
        </button>
      </div>
      <ActionView action={row.base.action} />
      {editing && (
        <ForkEditor
          trajectoryId={trajectoryId}
          step={row.step}
          action={row.base.action}
          sims={forkSims(available, sims)}
          remainingSteps={stepCount === null ? null : stepCount - row.step - 1}
          onClose={() => setEditing(false)}
        />
      )}
      <div className="compare-columns">
        <div className="compare-real">
          <ObservationView observation={row.base.real} />
        </div>
        {sims.map((sim) => {
          const simulated = row.bySim.get(sim);
          return simulated ? (
            <SimPrediction key={sim} sim={sim} simulated={simulated} />
          ) : (
            <section key={sim} className="panel sim-prediction" data-sim={sim}>
              <header className="panel-header">
                <h3 className="mono">{sim}</h3>
              </header>
              <p className="muted panel-body">Not simulated for this step.</p>
            </section>
          );
        })}
      </div>
    </article>
  );
}

/**
 * A trajectory's transitions with each chosen simulator's prediction beside the real observation.
 * Simulators and step live in the URL (`?sims=replay,retrieval&step=N`): a link reopens the same
 * comparison, and the simulators it names run as the page opens, those this server offers (or the
 * linked bench run used) at once, any other once the user presses Run (`linkedSimsToRun`).
 */
export function ComparePage({
  datasetId,
  trajectoryId,
  sims,
  step,
  bench,
}: {
  datasetId: string;
  trajectoryId: string;
  sims: string[];
  step: number;
  bench?: BenchItemRef | undefined;
}) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.trajectories.get.queryOptions({ trajectoryId }));
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const datasetName =
    datasets.data?.find((candidate) => candidate.id === datasetId)?.name ?? datasetId;
  const available = useQuery({
    ...trpc.simulate.available.queryOptions(),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [maxSteps, setMaxSteps] = useState(DEFAULT_MAX_STEPS);
  const { runs, run, stop } = useSimulationRuns(trajectoryId);

  const benchRun = useQuery({
    ...trpc.bench.run.queryOptions({ runId: bench?.runId ?? '' }),
    enabled: bench !== undefined,
  });
  // The link's simulators run as the page opens once it is known which may (`linkedSimsToRun`).
  const openingRun = useRef<{ sims: string[]; maxSteps: number } | null>({ sims, maxSteps });
  const [heldSims, setHeldSims] = useState<string[]>([]);
  const trustKnown = !available.isPending && (bench === undefined || !benchRun.isPending);
  useEffect(() => {
    const opening = openingRun.current;
    if (opening === null || !trustKnown) return;
    openingRun.current = null;
    const trusted = new Set([
      ...(available.data ?? []).map((sim) => sim.spec),
      BUNDLED_BROWSER_SIM.spec,
      ...(benchRun.data?.sims ?? []),
    ]);
    const { run: now, held } = linkedSimsToRun(opening.sims, trusted);
    setHeldSims(held);
    if (now.length > 0) run(now, opening.maxSteps);
  }, [run, trustKnown, available.data, benchRun.data]);

  const results = useMemo(() => {
    const done: SimulationResult[] = [];
    for (const sim of sims) {
      const state = runs.get(sim);
      // A stopped run's steps are shown too; its status line says how far it got.
      if (state?.status === 'done' || state?.status === 'stopped') done.push(state.result);
    }
    return done;
  }, [runs, sims]);
  const shownSims = results.map((result) => result.sim);
  const rows = useMemo(() => alignSteps(results), [results]);
  const summaries = useMemo(() => results.map(summarizeSimulation), [results]);
  const stopped = useMemo(() => {
    const planned = new Map<string, number | null>();
    for (const [sim, state] of runs) if (state.status === 'stopped') planned.set(sim, state.total);
    return planned;
  }, [runs]);
  const worst = useMemo(() => worstSteps(rows, WORST_STEPS_SHOWN), [rows]);
  const scored = useMemo(() => scoredPredictions(rows), [rows]);
  const rowIndex = rowIndexFor(rows, step);
  const currentRow = rows[rowIndex];

  // The URL names the step shown, so a link copied now reopens this very transition.
  const shownStep = currentRow?.step;
  useEffect(() => {
    if (shownStep !== undefined && shownStep !== step) {
      navigate(
        { page: 'compare', datasetId, trajectoryId, sims, step: shownStep, bench },
        'replace',
      );
    }
  }, [shownStep, step, datasetId, trajectoryId, sims, bench]);

  const goToStep = (target: number) =>
    navigate({ page: 'compare', datasetId, trajectoryId, sims, step: target, bench }, 'replace');
  // Several keys can arrive before React re-renders; each must move from the previous one.
  const latestRow = useRef(rowIndex);
  useLayoutEffect(() => {
    latestRow.current = rowIndex;
  }, [rowIndex]);
  useReplayKeyboard((command: ReplayCommand) => {
    if (command === 'toggle-play' || rows.length === 0) return;
    const target = stepAfter(command, latestRow.current, rows.length);
    latestRow.current = target;
    const targetRow = rows[target];
    if (targetRow) goToStep(targetRow.step);
  });

  const anyRunning = [...runs.values()].some((state) => state.status === 'running');
  // The split note's own query (cached): the summary leaves out the model's general "trained on"
  // tag only where the note says per trajectory whether it trained on it.
  const withModel = sims.some((sim) => trainingDataNote(sim) !== null);
  const split = useQuery({
    ...trpc.models.split.queryOptions({ model: BUNDLED_MODEL_NAME }, { staleTime: Infinity }),
    enabled: withModel,
  });
  const splitNoteShown = withModel && detail.data !== undefined && split.data?.status === 'ok';
  return (
    <div className="page compare-page">
      <div className="breadcrumb">
        <Link to={{ page: 'datasets' }}>Datasets</Link> ›{' '}
        <Link to={{ page: 'trajectories', datasetId, query: EMPTY_LIST_QUERY }}>{datasetName}</Link>{' '}
        ›{' '}
        <Link to={{ page: 'replay', datasetId, trajectoryId, step }}>
          <span>{trajectoryCrumb(detail.data, trajectoryId)}</span>
        </Link>{' '}
        › Compare
      </div>
      <QueryStatus label="the trajectory" isPending={detail.isPending} error={detail.error} />
      {detail.data && (
        <div className="page-header">
          <TrajectoryHeading trajectory={detail.data} />
          <span className="count">
            {formatCount(detail.data.transitionCount)} transitions · simulated vs real
          </span>
        </div>
      )}
      {detail.data && sims.some((sim) => trainingDataNote(sim) !== null) && (
        <ModelSplitNote model={BUNDLED_MODEL_NAME} trajectory={detail.data} />
      )}
      {bench && sims[0] !== undefined && (
        <>
          <p className="note" data-testid="compare-bench-note">
            Opened from an item of bench run {bench.runId}. Re-run in bench predicts that item as
            the run did (its corpus, its leave-out); the table below runs the simulators over the
            whole trajectory with its dataset as the corpus, so retrieval and models that read
            neighbors may answer differently from the run.
          </p>
          <ItemRerun runId={bench.runId} itemId={bench.itemId} sim={sims[0]} />
        </>
      )}
      <div className="compare-controls">
        <QueryStatus label="simulators" isPending={available.isPending} error={available.error} />
        <SimPicker
          available={[...(available.data ?? []), BUNDLED_BROWSER_SIM]}
          selected={sims}
          onChange={(next) =>
            navigate(
              { page: 'compare', datasetId, trajectoryId, sims: next, step, bench },
              'replace',
            )
          }
        />
        <label className="max-steps">
          Max transitions{' '}
          <input
            type="number"
            min={1}
            max={MAX_SIMULATED_STEPS}
            value={maxSteps}
            onChange={(event) => {
              const value = Math.trunc(Number(event.target.value));
              if (value >= 1) setMaxSteps(Math.min(value, MAX_SIMULATED_STEPS));
            }}
          />
        </label>
        <button
          type="button"
          className="primary"
          data-testid="compare-run"
          disabled={sims.length === 0}
          onClick={() => run(sims, maxSteps)}
        >
          {anyRunning ? 'Running…' : 'Run'}
        </button>
        <RunStatus sims={sims} runs={runs} onStop={stop} />
      </div>
      {heldSims.some((sim) => sims.includes(sim) && !runs.has(sim)) && (
        <p className="note" role="note" data-testid="compare-held-sims">
          This link names {heldSims.length === 1 ? 'a simulator' : 'simulators'} this server does
          not offer, so {heldSims.length === 1 ? 'it waits' : 'they wait'} for Run:{' '}
          {heldSims.map((sim, index) => (
            <span key={sim}>
              {index > 0 && ', '}
              <span className="mono">{sim}</span>
            </span>
          ))}
          . Running an endpoint&rsquo;s simulator sends it this trajectory.
        </p>
      )}
      {summaries.length > 0 && (
        <SummaryTable summaries={summaries} stopped={stopped} splitNoteShown={splitNoteShown} />
      )}
      {rows.length > 0 && (
        <>
          <p className="key-hint muted">j/k step · g/G first/last</p>
          <div className="compare-overview">
            <StepTable
              rows={rows}
              sims={shownSims}
              current={currentRow?.step ?? null}
              onSelect={goToStep}
            />
            <WorstSteps worst={worst} scored={scored} onSelect={goToStep} />
          </div>
          {currentRow && (
            <StepComparison
              key={currentRow.step}
              row={currentRow}
              sims={shownSims}
              trajectoryId={trajectoryId}
              available={[...(available.data ?? []), BUNDLED_BROWSER_SIM]}
              stepCount={detail.data?.stepCount ?? null}
            />
          )}
        </>
      )}
    </div>
  );
}
