import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { oracleNote, simToGrade } from '@terrarium/schema';
import { useState } from 'react';
import { plural } from '../../app/format';
import { Link } from '../../app/link';
import { useSingleFlight } from '../../app/single-flight';
import { useTRPC } from '../../app/trpc';

type SelectionKind = 'all' | 'random' | 'disagreement';

/** A researcher's form: a queue over one finished bench run's predictions. */
export function CreateQueueForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const runs = useQuery(trpc.bench.runs.queryOptions({}));
  const [runId, setRunId] = useState('');
  const [pickedSim, setPickedSim] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<SelectionKind>('all');
  const [count, setCount] = useState('20');
  const [seed, setSeed] = useState('1');
  const users = useQuery(trpc.auth.users.list.queryOptions());
  const [typedPerItem, setTypedPerItem] = useState<string | null>(null);
  const [blind, setBlind] = useState(true);
  const [assignees, setAssignees] = useState('');
  // '' is the judge's five dimensions; else a rule set's people criteria (its latest version), so
  // that its judge re-scored later is compared with the labels criterion by criterion.
  const [ruleSet, setRuleSet] = useState('');
  const ruleSets = useQuery(trpc.rulesets.list.queryOptions());
  // Only items of the domain the rule set is written for, unless the researcher unticks it:
  // criteria written for tool items ask of a terminal item what does not apply to it (walk 52).
  const [onlyDomain, setOnlyDomain] = useState(true);
  // A double click would make two identical queues.
  const creating = useSingleFlight();
  const create = useMutation(
    trpc.labels.createQueue.mutationOptions({
      // The new queue shows in the list; the page stays here. Opening its grading page would
      // lease its first item to the researcher, and labelers would find it taken.
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.labels.queues.queryKey() }),
    }),
  );
  const finished = (runs.data ?? []).filter((run) => run.status === 'done');
  const chosen = runId || finished[0]?.id || '';
  const run = finished.find((entry) => entry.id === chosen);
  const sims = run?.sims ?? [];
  // A pick survives a change of run only when the new run has that simulator too.
  const sim = simToGrade(sims, pickedSim) ?? undefined;
  // Two labels per item measure agreement, but only where two people can give them: an install
  // with no accounts beside its owner would leave every item waiting for a second label.
  const people = Math.max(1, users.data?.length ?? 1);
  const perItem = typedPerItem ?? String(Math.min(2, people));
  // Choosing items by rule-vs-judge disagreement needs a judge in the run.
  const selectionKind = kind === 'disagreement' && run?.judge === null ? 'all' : kind;
  // The domain the picked rule set is written for (its latest version, as the queue takes it).
  const picked = useQuery({
    ...trpc.rulesets.get.queryOptions({ name: ruleSet }),
    enabled: ruleSet !== '',
  });
  const domain = ruleSet === '' ? null : (picked.data?.ruleSet.domain ?? null);

  return (
    <form
      className="panel panel-body"
      aria-label="New label queue"
      onSubmit={(event) => {
        event.preventDefault();
        if (!run || sim === undefined || !creating.take()) return;
        const only = domain !== null && onlyDomain ? { domain } : {};
        const selection =
          selectionKind === 'all'
            ? { kind: selectionKind, ...only }
            : selectionKind === 'random'
              ? { kind: selectionKind, count: Number(count), seed: Number(seed), ...only }
              : { kind: selectionKind, count: Number(count), ...only };
        const labelers = assignees
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '');
        create.mutate(
          {
            ...(labelers.length > 0 ? { labelers } : {}),
            name: name || `${run.bench} v${run.benchVersion} · run ${run.id} · ${sim}`,
            runId: run.id,
            sim,
            selection,
            labelsPerItem: Number(perItem),
            blind,
            ...(ruleSet === '' ? {} : { ruleSet: { name: ruleSet } }),
          },
          { onSettled: creating.release },
        );
      }}
    >
      <h2>New queue</h2>
      {finished.length === 0 ? (
        <p className="muted">No finished bench run yet: run a bench first (Benches).</p>
      ) : (
        <>
          <label>
            Run{' '}
            <select value={chosen} onChange={(event) => setRunId(event.target.value)}>
              {finished.map((entry) => (
                <option key={entry.id} value={entry.id}>
                  {entry.bench} v{entry.benchVersion} · {entry.sims.join(', ')} · run {entry.id}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Simulator{' '}
            <select value={sim ?? ''} onChange={(event) => setPickedSim(event.target.value)}>
              {sims.map((entry) => (
                <option key={entry} value={entry}>
                  {oracleNote(entry) !== null ? `${entry} (oracle)` : entry}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Name <input value={name} onChange={(event) => setName(event.target.value)} />
          </label>{' '}
          <label>
            Items{' '}
            <select
              value={selectionKind}
              onChange={(event) => {
                const value = event.target.value;
                if (value === 'all' || value === 'random' || value === 'disagreement')
                  setKind(value);
              }}
            >
              <option value="all">all</option>
              <option value="random">random sample</option>
              <option
                value="disagreement"
                disabled={run?.judge === null}
                title={
                  run?.judge === null ? 'This run has no judge scores to disagree with' : undefined
                }
              >
                rule vs judge disagree most
                {run?.judge === null ? ' (needs a run with a judge)' : ''}
              </option>
            </select>
          </label>{' '}
          {selectionKind !== 'all' && (
            <label>
              Count{' '}
              <input
                type="number"
                min={1}
                value={count}
                onChange={(event) => setCount(event.target.value)}
              />
            </label>
          )}{' '}
          {selectionKind === 'random' && (
            <label>
              Seed{' '}
              <input type="number" value={seed} onChange={(event) => setSeed(event.target.value)} />
            </label>
          )}{' '}
          <label>
            Criteria{' '}
            <select value={ruleSet} onChange={(event) => setRuleSet(event.target.value)}>
              <option value="">the judge&apos;s five dimensions</option>
              {(ruleSets.data ?? []).map((entry) => (
                <option key={entry.name} value={entry.name}>
                  rule set {entry.name}
                  {entry.latestVersion === null ? ' (built-in)' : ` v${entry.latestVersion}`}
                </option>
              ))}
            </select>
          </label>{' '}
          {domain !== null && (
            <>
              <label title={`${ruleSet}'s criteria are written for ${domain} items`}>
                <input
                  type="checkbox"
                  checked={onlyDomain}
                  onChange={(event) => setOnlyDomain(event.target.checked)}
                />{' '}
                Only {domain} items
              </label>{' '}
            </>
          )}
          <label>
            Labelers per item{' '}
            <input
              type="number"
              min={1}
              max={50}
              value={perItem}
              onChange={(event) => setTypedPerItem(event.target.value)}
            />
          </label>{' '}
          <label>
            Labelers{' '}
            <input
              placeholder="everyone"
              value={assignees}
              onChange={(event) => setAssignees(event.target.value)}
            />
          </label>{' '}
          <label>
            <input
              type="checkbox"
              checked={blind}
              onChange={(event) => setBlind(event.target.checked)}
            />{' '}
            <span title="Labelers see neither the rules' and judge's scores nor each other's labels">
              Blind
            </span>
          </label>{' '}
          <button type="submit" className="button primary" disabled={create.isPending}>
            Create queue
          </button>
          {sim !== undefined && oracleNote(sim) !== null && (
            <p className="note" role="alert" data-testid="oracle-sim-warning">
              {sim} is an oracle: its predictions are the real observations, so every item would
              show Real = Simulated and labelers would grade a copy of the ground truth.
              {sims.some((entry) => oracleNote(entry) === null)
                ? ' Pick another simulator to grade a model.'
                : ' This run has no other simulator: run the bench with a model to grade one.'}
            </p>
          )}
          {domain !== null && !onlyDomain && (
            <p className="note" data-testid="queue-domain-warning">
              {ruleSet}&apos;s criteria are written for {domain} items; unticked, the queue may also
              take the run&apos;s other items, where they may not mean what they intend. Once made,
              the queue says how many it took.
            </p>
          )}
          {Number(perItem) > people && (
            <p className="note" data-testid="per-item-warning">
              Each item needs {perItem} labels from different people, and{' '}
              {people === 1 ? 'only one account can label here' : `only ${people} accounts exist`}:
              add labelers (Accounts, below) or items will wait for labels nobody can give.
            </p>
          )}
          {create.error && <p className="status status-error">{create.error.message}</p>}
          {create.data && !create.isPending && (
            <p className="status" role="status" data-testid="queue-created">
              Created {create.data.name} with {plural(create.data.items, 'item')}; none is taken
              yet. Labelers take items with Grade in the list below;{' '}
              <Link to={{ page: 'label-queue', queueId: create.data.id }}>Grade</Link> starts your
              own labeling.
            </p>
          )}
          {create.data && !create.isPending && create.data.warnings.length > 0 && (
            <p className="note" role="alert" data-testid="queue-created-warning">
              {create.data.warnings.join(' ')}
            </p>
          )}
        </>
      )}
    </form>
  );
}
