import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BenchSummary } from '@terrarium/schema';
import { Collapsible } from '../../app/collapsible';
import { ConfirmDelete } from '../../app/confirm-delete';
import { formatCount, formatUtc, plural } from '../../app/format';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import { BuildBenchForm } from './build-bench-form';
import { ELSEWHERE_REFRESH_MS } from './elsewhere-refresh';
import { samplingLabel } from './format-bench';
import { ImportBenchForm } from './import-bench-form';
import { RunsTable } from './runs-table';
import { StartRunForm } from './start-run-form';
import './bench.css';

/** The bench version's runs; the count beside them is theirs, so the two never disagree. */
function useBenchRuns(bench: BenchSummary) {
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.bench.runs.queryOptions({ bench: bench.name }),
    refetchInterval: ELSEWHERE_REFRESH_MS,
  });
  const ofVersion = (runs.data ?? []).filter((run) => run.benchVersion === bench.version);
  return { runs, ofVersion, count: runs.data === undefined ? bench.runs : ofVersion.length };
}

/**
 * Deleting a bench version takes its runs with it (its other versions and its datasets stay), so
 * it asks once more, saying how many; the server refuses while a run goes or labels rest on one.
 */
function DeleteBenchButton({ bench, runs }: { bench: BenchSummary; runs: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.bench.delete.mutationOptions());
  return (
    <ConfirmDelete
      what="bench"
      name={`${bench.name} v${bench.version}`}
      question={`Delete its ${plural(bench.itemCount, 'item')} and ${plural(runs, 'run')} with their scores? Its datasets stay.`}
      pending={remove.isPending}
      error={remove.error}
      onConfirm={(done) =>
        remove.mutate(
          { name: bench.name, version: bench.version },
          {
            onSuccess: async () => {
              done();
              await queryClient.invalidateQueries({ queryKey: trpc.bench.list.queryKey() });
              await queryClient.invalidateQueries({ queryKey: trpc.bench.runs.queryKey() });
            },
          },
        )
      }
    />
  );
}

function BenchCard({ bench }: { bench: BenchSummary }) {
  const { runs, ofVersion, count: runCount } = useBenchRuns(bench);
  const tasks = Object.entries(bench.byTask).toSorted(([a], [b]) => a.localeCompare(b));
  return (
    <section
      className="panel bench-card"
      data-testid="bench"
      data-bench={bench.name}
      data-version={bench.version}
      aria-label={`${bench.name} v${bench.version}`}
    >
      <header className="panel-header">
        <h2 className="bench-name">
          {bench.name} <span className="muted">v{bench.version}</span>
        </h2>
        <span className="muted spacer-left">{formatUtc(bench.createdAt, 'second')}</span>
        <DeleteBenchButton bench={bench} runs={runCount} />
      </header>
      <div className="panel-body">
        <dl className="facts bench-facts">
          <dt>Items</dt>
          <dd data-testid="bench-items">
            {formatCount(bench.itemCount)}
            {bench.splits.dev > 0 && (
              <span className="muted">
                {' '}
                (test {formatCount(bench.splits.test)} · dev {formatCount(bench.splits.dev)}: a run
                scores one)
              </span>
            )}
          </dd>
          <dt>Tasks</dt>
          <dd data-testid="bench-tasks">
            {tasks.map(([task, count]) => (
              <span key={task} className="tag" data-task={task}>
                {task} <span className="muted">{formatCount(count)}</span>
              </span>
            ))}
          </dd>
          <dt>Sampling</dt>
          <dd className="mono">
            {samplingLabel(bench.sampling)} · seed {bench.seed}
            {bench.devFraction > 0 && ` · dev ${bench.devFraction}`}
          </dd>
          <dt>Sources</dt>
          <dd>{bench.sources.join(', ')}</dd>
          {bench.duplicatesDropped > 0 && (
            <>
              <dt>Duplicates dropped</dt>
              <dd>{formatCount(bench.duplicatesDropped)}</dd>
            </>
          )}
          <dt>Runs</dt>
          <dd data-testid="bench-run-count">{formatCount(runCount)}</dd>
        </dl>
        <Collapsible title="Runs" summary={plural(runCount, 'run')} defaultOpen={bench.runs > 0}>
          <QueryStatus label="runs" isPending={runs.isPending} error={runs.error} />
          {runs.data && <RunsTable runs={ofVersion} />}
        </Collapsible>
        <Collapsible title="New run" testId="new-run">
          <StartRunForm bench={bench.name} version={bench.version} splits={bench.splits} />
        </Collapsible>
      </div>
    </section>
  );
}

/** Frozen benches with their runs; build a new one or run simulators on one. */
export function BenchesPage() {
  const trpc = useTRPC();
  const benches = useQuery({
    ...trpc.bench.list.queryOptions(),
    refetchInterval: ELSEWHERE_REFRESH_MS,
  });
  return (
    <div className="page bench-page">
      <div className="page-header">
        <h1>Benches</h1>
        {benches.data && (
          <span className="count">{plural(benches.data.length, 'bench', 'benches')}</span>
        )}
      </div>
      {benches.data && (
        // Opened at first for a store without benches: building one is then the only thing to do.
        <Collapsible title="New bench" testId="new-bench" defaultOpen={benches.data.length === 0}>
          <BuildBenchForm />
        </Collapsible>
      )}
      {benches.data && (
        <Collapsible title="Import AgentWorldBench files" testId="import-bench">
          <ImportBenchForm />
        </Collapsible>
      )}
      <QueryStatus label="benches" isPending={benches.isPending} error={benches.error} />
      {benches.data?.map((bench) => (
        <BenchCard key={bench.id} bench={bench} />
      ))}
    </div>
  );
}
