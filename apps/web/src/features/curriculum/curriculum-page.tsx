import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { CHART_MARGIN, xAxisTitle, yAxisTitle } from '../../app/chart-axes';
import { downloadText } from '../../app/download';
import { formatPercent, percentOf } from '../../app/format';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import { AxisCharts, GapChart } from './axis-charts';
import { GenerationDivergences } from './generation-divergences';
import { GenerationRollouts } from './generation-rollouts';
import { runOptionLabel, runsAsShown } from './run-options';
import { seedSummary } from './seed-summary';

/** The domains whose trajectories seed a curriculum: a terminal world is rebuilt from them. */
const SEED_DOMAINS: ReadonlySet<string> = new Set(['terminal', 'swe']);

/** The policy select's entry for a spec typed by hand (an endpoint, another model folder). */
const OTHER_POLICY = 'other';

const CHART_HEIGHT = 240;
/** How often a queued or running run is read again (the job records a row per generation). */
const LIVE_POLL_MS = 400;
const LIST_POLL_MS = 2000;

/**
 * A lineage's heading: the tier its probes reached, and the child the last advance made when no
 * generation has played it yet (the table's mean tier counts only played tiers).
 */
function reachText(reach: { made: number; played: number | null }): string {
  if (reach.played === null) return `tier ${reach.made} made, not played yet`;
  if (reach.made === reach.played) return `tier ${reach.played}`;
  return `tier ${reach.played} played, tier ${reach.made} made`;
}

/**
 * The run's tasks to train on elsewhere: JSONL here, Harbor task folders from the CLI (a folder
 * per task does not fit one download).
 */
function TaskExport({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [tasks, setTasks] = useState<'all' | 'current'>('all');
  const exported = useMutation({
    mutationFn: () =>
      queryClient.fetchQuery(
        trpc.curriculum.exportTasks.queryOptions({ runId, format: 'jsonl', tasks }),
      ),
    onSuccess: (result) => {
      if (result.format === 'jsonl')
        downloadText(result.text, `curriculum-${runId}-tasks.jsonl`, 'application/x-ndjson');
    },
  });
  return (
    <p className="curriculum-export">
      <label>
        Tasks{' '}
        <select
          aria-label="Tasks to export"
          value={tasks}
          onChange={(event) => setTasks(event.target.value === 'current' ? 'current' : 'all')}
        >
          <option value="all">every tier of every lineage</option>
          <option value="current">each lineage's current task</option>
        </select>
      </label>{' '}
      <button type="button" disabled={exported.isPending} onClick={() => exported.mutate()}>
        Export tasks (JSONL)
      </button>{' '}
      {exported.data ? (
        <span data-testid="curriculum-export-result">
          {exported.data.exported.length} task(s) exported
          {exported.data.rejected.length > 0
            ? `, ${exported.data.rejected.length} left out: ${exported.data.rejected
                .slice(0, 3)
                .map((entry) => entry.reason)
                .join('; ')}`
            : ''}
        </span>
      ) : null}
      {exported.error ? <span role="alert">{exported.error.message}</span> : null}
      <span className="muted">
        {' '}
        Harbor task folders:{' '}
        <code>terrarium curriculum export --run {runId} --format harbor --out DIR</code>
      </span>
    </p>
  );
}

/** The run shown is in the URL (`/curriculum?run=3`), so a run can be linked and reloaded. */
function setRunId(runId: string | null): void {
  navigate({ page: 'curriculum', runId });
}

/**
 * A curriculum run as a job: start it (the scripted policy by default, the bundled ONNX policy,
 * any OpenAI-compatible endpoint; optionally a simulator standing in for the worlds), watch it
 * live, cancel it. Per generation the pass rate, partially solved groups and mean tier, per axis
 * the same figures, the simulated-vs-executable gap with each generation's divergent steps (a
 * click shows both observations and their diff), each generation's rollouts (they open in the
 * replay viewer), then each lineage's tasks (which mutation made each from which parent, with the
 * diff) and the mutations the gates refused, with their reasons.
 */
export function CurriculumPage({ runId }: { runId: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [dataset, setDataset] = useState('builtin');
  const [scheduler, setScheduler] = useState<'lineage' | 'band'>('lineage');
  const [generations, setGenerations] = useState(8);
  const policies = useQuery(trpc.curriculum.policies.queryOptions());
  const [policyChoice, setPolicyChoice] = useState('scripted');
  const [otherPolicy, setOtherPolicy] = useState('');
  const [sim, setSim] = useState('');
  const [divergenceGeneration, setDivergenceGeneration] = useState<number | null>(null);
  // The list names each run's status too: read again while any run is still being played.
  const runs = useQuery({
    ...trpc.curriculum.list.queryOptions(),
    refetchInterval: (query) =>
      (query.state.data ?? []).some((run) => run.status === 'queued' || run.status === 'running')
        ? LIST_POLL_MS
        : false,
  });
  // What the chosen dataset gives, said before Start (walk 47: datasets made by curricula or
  // SWE-agent's give no task, and the page said so only once a run was refused).
  const seeds = useQuery({
    ...trpc.curriculum.seeds.queryOptions({ dataset }),
    staleTime: 60_000,
  });
  const noSeeds = seeds.data?.tasks === 0;
  const policy = policyChoice === OTHER_POLICY ? otherPolicy.trim() : policyChoice;
  const start = useMutation(
    trpc.curriculum.start.mutationOptions({
      onSuccess: async (run) => {
        setRunId(run.id);
        setDivergenceGeneration(null);
        await queryClient.invalidateQueries({ queryKey: trpc.curriculum.list.queryKey() });
      },
    }),
  );
  const cancel = useMutation(trpc.curriculum.cancel.mutationOptions());
  // A canceled or failed run goes on from its last finished generation (walk 43: a dead end).
  const resume = useMutation(
    trpc.curriculum.resume.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.curriculum.get.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.curriculum.list.queryKey() });
      },
    }),
  );
  const detail = useQuery({
    ...trpc.curriculum.get.queryOptions({ runId: runId ?? '' }),
    enabled: runId !== null,
    refetchInterval: (query) => {
      const status = query.state.data?.run.status;
      return status === 'queued' || status === 'running' || status === undefined
        ? LIVE_POLL_MS
        : false;
    },
  });
  const data = detail.data;
  // The select reads the shown run from this query (runsAsShown); when the run's status moves on
  // (it ends), the list is read again too, so it stops polling and says so of that run once
  // another is chosen. Generations alone do not: they tick every second or so while a run plays.
  const shownStatus = data?.run.status ?? null;
  const listedStatus = runs.data?.find((run) => run.id === data?.run.id)?.status ?? null;
  useEffect(() => {
    if (shownStatus === null || listedStatus === null || shownStatus === listedStatus) return;
    void queryClient.invalidateQueries({ queryKey: trpc.curriculum.list.queryKey() });
  }, [shownStatus, listedStatus, queryClient, trpc]);
  const stats = data?.generations ?? [];
  const points = stats.map((generation) => ({
    generation: generation.generation,
    passRate: percentOf(generation.passRate),
    partialGroups: percentOf(generation.partialGroups),
    meanTier: generation.meanTier,
  }));
  const live = data?.run.status === 'queued' || data?.run.status === 'running';
  const withGap = stats.some((generation) => generation.gap !== null);
  return (
    <section className="page curriculum-page">
      <h1>Curriculum</h1>
      <p className="muted">
        Tasks that evolve as a policy learns them. Each seed task starts a lineage in an executable
        world; every generation the policy plays each lineage's task 8 times, and once it passes
        more than 6 of them the task is mutated into a harder one (one more step, distractor files,
        a stricter verifier…) that must pass every gate. With a simulator, each rollout is also
        played against the simulator instead of the world, and the gap between the two is charted
        with the steps where they diverge.
      </p>
      <form
        className="curriculum-form"
        onSubmit={(event) => {
          event.preventDefault();
          start.mutate({
            dataset,
            generations,
            policy: policy === '' ? 'scripted' : policy,
            sim: sim.trim() === '' ? null : sim.trim(),
            scheduler,
          });
        }}
      >
        <label>
          Seed tasks{' '}
          <select
            aria-label="Seed tasks"
            value={dataset}
            onChange={(event) => {
              setDataset(event.target.value);
              // The refusal was about the seed before (walk 43: it stayed on screen).
              start.reset();
            }}
          >
            <option value="builtin">builtin (demo)</option>
            {/* By name, as the CLI names it; only data a terminal world can be rebuilt from. */}
            {(datasets.data ?? [])
              .filter((entry) => entry.domains.some((domain) => SEED_DOMAINS.has(domain)))
              .map((entry) => (
                <option key={entry.id} value={entry.name}>
                  {entry.name}
                </option>
              ))}
          </select>
        </label>{' '}
        <label>
          Generations{' '}
          <input
            aria-label="Generations"
            type="number"
            min={1}
            max={200}
            value={generations}
            onChange={(event) => setGenerations(Number(event.target.value))}
          />
        </label>{' '}
        <label>
          Policy{' '}
          <select
            aria-label="Policy"
            value={policyChoice}
            onChange={(event) => setPolicyChoice(event.target.value)}
          >
            {(
              policies.data ?? [{ spec: 'scripted', label: 'Scripted baseline', description: '' }]
            ).map((entry) => (
              <option key={entry.spec} value={entry.spec} title={entry.description}>
                {entry.label}
              </option>
            ))}
            <option value={OTHER_POLICY}>Other (onnx:PATH or openai:URL#MODEL)…</option>
          </select>
        </label>{' '}
        {policyChoice === OTHER_POLICY ? (
          <>
            <input
              aria-label="Policy spec"
              value={otherPolicy}
              placeholder="openai:URL#MODEL or onnx:PATH"
              onChange={(event) => setOtherPolicy(event.target.value)}
            />{' '}
          </>
        ) : null}
        <label>
          Scheduler{' '}
          <select
            aria-label="Scheduler"
            value={scheduler}
            onChange={(event) => {
              const value = event.target.value;
              if (value === 'lineage' || value === 'band') setScheduler(value);
            }}
          >
            <option
              value="lineage"
              title="Moves a lineage on once more than 6 of its 8 probes pass"
            >
              lineage (on past 6 of 8)
            </option>
            <option value="band" title="Keeps each lineage's success between 0.3 and 0.7">
              band (success 0.3-0.7)
            </option>
          </select>
        </label>{' '}
        <label>
          Simulator{' '}
          <input
            aria-label="Simulator"
            value={sim}
            placeholder="none, or retrieval, replay, onnx:…, openai:…"
            onChange={(event) => setSim(event.target.value)}
          />
        </label>{' '}
        <button type="submit" disabled={start.isPending || noSeeds}>
          {policy === 'scripted' || policy === ''
            ? 'Play with the scripted policy'
            : 'Play with this policy'}
        </button>
      </form>
      {seeds.data ? (
        <p className={noSeeds ? 'status status-error' : 'muted'} data-testid="seed-summary">
          {seedSummary(dataset, seeds.data)}
        </p>
      ) : null}
      {start.error ? <p role="alert">{start.error.message}</p> : null}
      {runs.data?.length === 0 ? (
        <p className="muted" data-testid="no-curriculum-runs">
          No curriculum runs yet. The scripted policy needs no model: it replays each task's
          reference solution with seeded slips, so a first run shows the figures in seconds.
        </p>
      ) : null}
      {(runs.data ?? []).length > 0 ? (
        <label>
          Run{' '}
          <select
            aria-label="Run"
            value={runId ?? ''}
            onChange={(event) => {
              setRunId(event.target.value === '' ? null : event.target.value);
              setDivergenceGeneration(null);
            }}
          >
            <option value="">(choose a run)</option>
            {runsAsShown(runs.data ?? [], data?.run ?? null).map((run) => (
              <option key={run.id} value={run.id}>
                {runOptionLabel(run)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {data ? (
        <p className="curriculum-status" aria-live="polite">
          Run #{data.run.id} ({data.run.settings?.policy ?? '?'}
          {data.run.settings?.sim ? ` vs ${data.run.settings.sim}` : ''}
          {data.run.settings?.scheduler === 'band' ? ', band scheduler' : ''}):{' '}
          <strong className="curriculum-run-status">{data.run.status}</strong>, generation{' '}
          {data.run.generationsDone} of {data.run.generationsTotal}
          {data.run.error ? ` (${data.run.error})` : ''}{' '}
          {live ? (
            <button
              type="button"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate({ runId: data.run.id })}
            >
              Cancel run
            </button>
          ) : null}
          {data.run.status === 'canceled' || data.run.status === 'failed' ? (
            <button
              type="button"
              disabled={resume.isPending}
              onClick={() => resume.mutate({ runId: data.run.id })}
              title="Goes on from the last finished generation"
            >
              Resume run
            </button>
          ) : null}
          {resume.isError ? (
            <span className="status status-error" role="alert">
              {resume.error.message}
            </span>
          ) : null}
        </p>
      ) : null}
      {points.length > 0 && data ? (
        <>
          <h2>Per generation</h2>
          <figure aria-label="Curriculum chart">
            <ResponsiveContainer width="100%" minWidth={480} height={CHART_HEIGHT}>
              <LineChart data={points} margin={CHART_MARGIN}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="generation" label={xAxisTitle('generation')} />
                <YAxis
                  yAxisId="rate"
                  domain={[0, 100]}
                  label={yAxisTitle('% of rollouts / groups')}
                />
                <YAxis
                  yAxisId="tier"
                  orientation="right"
                  allowDecimals={false}
                  label={yAxisTitle('mean tier (mutations)', 'right')}
                />
                <Tooltip />
                <Legend verticalAlign="top" />
                <Line
                  yAxisId="rate"
                  dataKey="passRate"
                  name="pass rate %"
                  stroke="#2458b3"
                  isAnimationActive={false}
                />
                <Line
                  yAxisId="rate"
                  dataKey="partialGroups"
                  name="partially solved groups %"
                  stroke="#b45309"
                  isAnimationActive={false}
                />
                <Line
                  yAxisId="tier"
                  dataKey="meanTier"
                  // The one line not in %: the legend says which axis reads it (walk 47).
                  name="mean tier (right axis)"
                  stroke="#15803d"
                  isAnimationActive={false}
                />
              </LineChart>
            </ResponsiveContainer>
          </figure>
          {/* In a run with a simulator the pass rate is the executable side of the gap: one
              column under one name (walk 43 saw "Pass rate" and "Executable" side by side, equal). */}
          <table className="curriculum-generations">
            <thead>
              <tr>
                <th>Generation</th>
                <th className="num">Tasks</th>
                <th
                  className="num"
                  title="Rollouts whose task's verifier passed, in the executable world"
                >
                  {withGap ? 'Pass rate (executable)' : 'Pass rate'}
                </th>
                {withGap ? (
                  <th
                    className="num"
                    title="The same rollouts' actions answered by the simulator instead of the world, graded by the same verifier"
                  >
                    Simulated
                  </th>
                ) : null}
                <th className="num">Partially solved</th>
                {withGap ? <th className="num">Divergent steps</th> : null}
                <th>Rollouts</th>
                <th
                  className="num"
                  title="Harder variants made for the lineages that advanced after this generation: kept (passed every gate) / refused by the gates (reasons under each lineage below)"
                >
                  Mutations kept / refused
                </th>
                <th className="num">Mean tier</th>
              </tr>
            </thead>
            <tbody>
              {stats.map((generation) => (
                <tr key={generation.generation}>
                  <td>{generation.generation}</td>
                  <td className="num">{generation.tasks}</td>
                  <td className="num">{formatPercent(generation.passRate)}</td>
                  {withGap ? (
                    <td className="num">
                      {generation.gap ? formatPercent(generation.gap.passRateSimulated) : '–'}
                    </td>
                  ) : null}
                  <td className="num">{formatPercent(generation.partialGroups)}</td>
                  {withGap ? (
                    <td className="num">
                      {generation.gap ? (
                        <button
                          type="button"
                          aria-pressed={divergenceGeneration === generation.generation}
                          title="The steps where the simulator answered differently, with their content score and diff"
                          onClick={() =>
                            setDivergenceGeneration(
                              divergenceGeneration === generation.generation
                                ? null
                                : generation.generation,
                            )
                          }
                        >
                          {generation.gap.divergentSteps} / {generation.gap.steps}
                        </button>
                      ) : (
                        '–'
                      )}
                    </td>
                  ) : null}
                  <td>
                    <GenerationRollouts runId={data.run.id} generation={generation.generation} />
                  </td>
                  <td className="num" data-testid="generation-mutations">
                    {generation.mutations.accepted} / {generation.mutations.rejected}
                  </td>
                  <td className="num">{generation.meanTier.toFixed(2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {divergenceGeneration !== null && withGap ? (
            <>
              <h2>Divergent steps, generation {divergenceGeneration}</h2>
              <GenerationDivergences runId={data.run.id} generation={divergenceGeneration} />
            </>
          ) : null}
          <h2>Per axis</h2>
          <AxisCharts generations={stats} />
          {withGap ? (
            <>
              <h2>Simulated vs executable</h2>
              <p>
                Every probe is played twice: in the executable world, and with{' '}
                {data.run.settings?.sim} answering instead (the world still runs each action, so
                state checks see what the actions really did; an answer read off the screen is the
                simulator&apos;s).
              </p>
              {(data.run.settings?.policy ?? 'scripted') === 'scripted' ? (
                <p className="note" data-testid="scripted-gap-note">
                  The scripted policy plays each task&apos;s reference actions whatever the answers
                  say, so its simulated pass rate moves with {data.run.settings?.sim} only where a
                  task&apos;s answer is read off the screen, never where the world&apos;s state is
                  checked: read the divergent steps (how often its answers differed from the
                  world&apos;s), or play a policy that reads the answers, to judge the simulator.
                </p>
              ) : null}
              <GapChart generations={stats} />
            </>
          ) : null}
          <h2>Lineages</h2>
          <TaskExport runId={data.run.id} />
          {data.lineages.map((lineage) => (
            <details key={lineage.id} className="curriculum-lineage">
              <summary>
                {lineage.id}: {reachText(lineage.reach)}
                {lineage.capped ? ' (capped)' : ''}
              </summary>
              <ol>
                {lineage.nodes.map((node) => (
                  <li key={node.task.id}>
                    <strong>{node.axis ?? 'seed'}</strong> {node.description}
                    {node.parentId === null ? null : ` (from ${node.parentId})`}
                    {lineage.reach.played === null || node.tier > lineage.reach.played
                      ? ' · not played yet'
                      : null}
                    {node.diff === null ? null : (
                      <pre>
                        {JSON.stringify(
                          {
                            worldAdded: node.diff.worldAdded,
                            verifier: node.diff.verifier.after.checks.map(({ check }) => check),
                          },
                          null,
                          2,
                        )}
                      </pre>
                    )}
                  </li>
                ))}
              </ol>
              {lineage.rejected.length > 0 ? (
                <ul className="curriculum-rejected">
                  {lineage.rejected.map((rejected) => (
                    <li key={`${rejected.generation}-${rejected.parentId}-${rejected.axis}`}>
                      refused {rejected.axis} of {rejected.parentId}: {rejected.reasons.join('; ')}
                    </li>
                  ))}
                </ul>
              ) : null}
            </details>
          ))}
        </>
      ) : null}
    </section>
  );
}
