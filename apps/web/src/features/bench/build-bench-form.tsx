import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BenchManifest } from '@terrarium/schema';
import { useState } from 'react';
import { formatCount, plural } from '../../app/format';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import { buildBenchRequest } from './bench-forms';

type SamplingChoice = 'agentworld' | 'all' | 'random';

/** Choose datasets and a sampling rule; the server freezes the items into a new bench version. */
export function BuildBenchForm({ onBuilt }: { onBuilt?(manifest: BenchManifest): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const [sampling, setSampling] = useState<SamplingChoice>('agentworld');
  const [randomCount, setRandomCount] = useState('5');
  const [seed, setSeed] = useState('0');
  const [devFraction, setDevFraction] = useState('0');
  // Empty: no cap, as `bench build` without `--max-per-task`.
  const [maxPerTask, setMaxPerTask] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const build = useMutation(
    trpc.bench.build.mutationOptions({
      onSuccess: async (manifest) => {
        await queryClient.invalidateQueries({ queryKey: trpc.bench.list.queryKey() });
        onBuilt?.(manifest);
      },
    }),
  );

  const toggle = (dataset: string, checked: boolean) =>
    setChosen(checked ? [...chosen, dataset] : chosen.filter((other) => other !== dataset));

  return (
    <form
      className="bench-form"
      aria-label="Build bench"
      // buildBenchRequest checks every field and says what is wrong in the CLI's terms; the
      // browser's own check would block a value such as 0 before it, with its own words (min and
      // step stay as the spinners' hints).
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const request = buildBenchRequest({
          name,
          datasets: chosen,
          sampling: sampling === 'random' ? `random:${randomCount}` : sampling,
          seed,
          devFraction,
          maxPerTask,
        });
        setFormError(request.ok ? null : request.error);
        if (request.ok) build.mutate(request.value);
      }}
    >
      <label className="field">
        Name{' '}
        <input
          type="text"
          aria-label="Bench name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="tau2-retail"
        />
      </label>
      <fieldset className="bench-datasets">
        <legend>Datasets</legend>
        <QueryStatus label="datasets" isPending={datasets.isPending} error={datasets.error} />
        {datasets.data?.length === 0 && <span className="muted">No datasets imported yet.</span>}
        {datasets.data?.map((dataset) => (
          <label key={dataset.id} className="check-option">
            <input
              type="checkbox"
              checked={chosen.includes(dataset.name)}
              onChange={(event) => toggle(dataset.name, event.target.checked)}
            />{' '}
            {dataset.name}{' '}
            <span className="muted">
              {plural(dataset.trajectories, 'trajectory', 'trajectories')}
            </span>
          </label>
        ))}
      </fieldset>
      <label className="field">
        Sampling{' '}
        <select
          aria-label="Sampling"
          value={sampling}
          onChange={(event) => {
            const value = event.target.value;
            if (value === 'agentworld' || value === 'all' || value === 'random') setSampling(value);
          }}
        >
          <option value="agentworld">agentworld (first, 3 middle, last)</option>
          <option value="all">all transitions</option>
          <option value="random">random N per trajectory</option>
        </select>
      </label>
      {sampling === 'random' && (
        <label className="field">
          N{' '}
          <input
            type="number"
            aria-label="Random count"
            min={1}
            value={randomCount}
            onChange={(event) => setRandomCount(event.target.value)}
          />
        </label>
      )}
      <label className="field">
        Seed{' '}
        <input
          type="number"
          aria-label="Seed"
          value={seed}
          onChange={(event) => setSeed(event.target.value)}
        />
      </label>
      <label className="field">
        Dev fraction{' '}
        <input
          type="number"
          aria-label="Dev fraction"
          min={0}
          max={1}
          step={0.05}
          value={devFraction}
          onChange={(event) => setDevFraction(event.target.value)}
        />
      </label>
      <label
        className="field"
        title="At most this many items per task stratum (a benchmark and domain, e.g. tau2-bench/retail: the task of the leaderboard), a seeded choice; empty for no cap"
      >
        Max per task{' '}
        {/* Text, not a number input: a number input's value is empty for text it cannot read
            (`1,000`), which would build the bench uncapped without a word; the form's own check
            reads what was typed and refuses it. */}
        <input
          type="text"
          inputMode="numeric"
          aria-label="Max per task"
          placeholder="no cap"
          value={maxPerTask}
          onChange={(event) => setMaxPerTask(event.target.value)}
        />
      </label>
      <button type="submit" className="primary" disabled={build.isPending}>
        {build.isPending ? 'Building…' : 'Build bench'}
      </button>
      {formError !== null && (
        <p className="status status-error" role="alert">
          {formError}
        </p>
      )}
      {build.error && (
        <p className="status status-error" role="alert">
          Could not build the bench: {build.error.message}
        </p>
      )}
      {build.data && (
        <p className="status" role="status" data-testid="build-result">
          Built {build.data.name} v{build.data.version}: {plural(build.data.itemCount, 'item')}
          {build.data.duplicatesDropped > 0 &&
            ` (${formatCount(build.data.duplicatesDropped)} duplicates dropped)`}
        </p>
      )}
    </form>
  );
}
