import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { plural } from '../../app/format';
import { Link } from '../../app/link';
import { QueryStatus } from '../../app/query-status';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import type { ListQuery } from '../../app/url-state';
import { toTrajectoryFilter } from './list-filter';
import { SEARCH_SCOPE, TrajectoryFilters } from './trajectory-filters';
import { TrajectoryTable } from './trajectory-table';
import { useTrajectoryTotal } from './use-paged-trajectories';

export function TrajectoryListPage({
  datasetId,
  query,
}: {
  datasetId: string | null;
  query: ListQuery;
}) {
  const trpc = useTRPC();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const dataset = datasets.data?.find((candidate) => candidate.id === datasetId);
  const filter = toTrajectoryFilter(datasetId, query);
  const paged = useTrajectoryTotal(filter);
  // While the datasets load, no name yet rather than the store's id as if it were one (walk 46).
  const title = datasetId === null ? 'All trajectories' : (dataset?.name ?? 'Dataset…');
  const datasetNames = useMemo(
    () => new Map((datasets.data ?? []).map((candidate) => [candidate.id, candidate.name])),
    [datasets.data],
  );

  // An id no dataset has (a stale link, a deleted dataset) is said, not shown as an empty dataset.
  if (datasetId !== null && datasets.data !== undefined && dataset === undefined) {
    return (
      <div className="page">
        <div className="breadcrumb">
          <Link to={{ page: 'datasets' }}>Datasets</Link> › <span>{datasetId}</span>
        </div>
        <h1>No such dataset</h1>
        <p data-testid="no-such-dataset">
          No dataset has the id <code>{datasetId}</code>; it may have been deleted.{' '}
          <Link to={{ page: 'datasets' }}>See the datasets there are.</Link>
        </p>
      </div>
    );
  }

  return (
    <div className="page page-fill">
      <div className="breadcrumb">
        <Link to={{ page: 'datasets' }}>Datasets</Link> › <span>{title}</span>
      </div>
      <div className="page-header">
        <h1>{title}</h1>
        <span className="count" data-testid="trajectory-total">
          {paged.total === null ? '' : plural(paged.total, 'trajectory', 'trajectories')}
        </span>
        {paged.total !== null && paged.total > 0 && paged.order !== 'id' && (
          <span className="muted" data-testid="trajectory-order">
            {paged.order === 'relevance'
              ? 'best matches first: the search’s terms in the id or task, then the most matching steps'
              : 'in import order: too many match to rank them; narrow the search'}
          </span>
        )}
        {query.q.trim() !== '' && (
          <span className="muted" data-testid="search-scope">
            {SEARCH_SCOPE}
          </span>
        )}
      </div>
      <TrajectoryFilters
        query={query}
        datasets={
          datasets.data === undefined
            ? null
            : datasetId === null
              ? datasets.data
              : dataset === undefined
                ? null
                : [dataset]
        }
        onChange={(next) => navigate({ page: 'trajectories', datasetId, query: next }, 'replace')}
      />
      <QueryStatus label="trajectories" isPending={paged.total === null} error={paged.error} />
      {paged.total === 0 && <p className="status">No trajectories match.</p>}
      {paged.total !== null && paged.total > 0 && (
        <TrajectoryTable
          total={paged.total}
          filter={filter}
          datasetNames={datasetId === null ? datasetNames : null}
        />
      )}
    </div>
  );
}
