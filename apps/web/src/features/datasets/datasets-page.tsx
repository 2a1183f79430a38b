import { useQuery } from '@tanstack/react-query';
import { formatCount, formatUtc, plural } from '../../app/format';
import { Link } from '../../app/link';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { STEPS_TITLE, TRANSITIONS_TITLE } from '../../app/count-titles';
import { isActive } from '../import/import-job-status';
import { DeleteDatasetButton } from './delete-dataset';

/** How often the page asks again while an import runs, and while none does. */
const IMPORT_POLL_MS = 2000;
const IDLE_POLL_MS = 10_000;

export function DatasetsPage() {
  const trpc = useTRPC();
  // Imports still running: their datasets' counts are not final (a folder commits a file at a
  // time). Asked again now and then even when none runs: the CLI starts the next file's job only
  // once its upload is in, so there are moments with none.
  const importing = useQuery({
    ...trpc.imports.list.queryOptions({ limit: 50 }),
    refetchInterval: (query) =>
      (query.state.data ?? []).some(isActive) ? IMPORT_POLL_MS : IDLE_POLL_MS,
  });
  const running = (importing.data ?? []).some(isActive);
  const datasets = useQuery({
    ...trpc.datasets.list.queryOptions(),
    // Counts grow as each running import commits; the list follows them.
    refetchInterval: running ? IMPORT_POLL_MS : IDLE_POLL_MS,
  });
  const filesLeft = new Map<string, number>();
  for (const job of importing.data ?? []) {
    if (isActive(job))
      filesLeft.set(job.dataset, (filesLeft.get(job.dataset) ?? 0) + job.files.length);
  }
  return (
    <div className="page">
      <div className="page-header">
        <h1>Datasets</h1>
        <div className="page-actions">
          <Link to={{ page: 'trajectories', datasetId: null, query: EMPTY_LIST_QUERY }}>
            All trajectories
          </Link>
          <Link to={{ page: 'import' }} className="button">
            Import files…
          </Link>
        </div>
      </div>
      <QueryStatus label="datasets" isPending={datasets.isPending} error={datasets.error} />
      {datasets.data && datasets.data.length === 0 && (
        <p className="status">
          No datasets yet. <Link to={{ page: 'import' }}>Import trajectory files</Link> to start.
        </p>
      )}
      {datasets.data && datasets.data.length > 0 && (
        <table className="data-table" data-testid="datasets-table">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Trajectories</th>
              <th className="num" title={TRANSITIONS_TITLE}>
                Transitions
              </th>
              <th className="num" title={STEPS_TITLE}>
                Steps
              </th>
              <th>Domains</th>
              <th>Formats</th>
              <th
                className="num"
                title="Records of the imported files that could not be read or converted: kept apart with the file, line and reason (the count opens them), never half-imported"
              >
                Quarantined
              </th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {datasets.data.map((dataset) => (
              <tr key={dataset.id}>
                <td>
                  <Link
                    to={{ page: 'trajectories', datasetId: dataset.id, query: EMPTY_LIST_QUERY }}
                  >
                    {dataset.name}
                  </Link>
                  {filesLeft.has(dataset.name) && (
                    <span className="muted" data-testid="dataset-importing">
                      {' '}
                      · importing ({plural(filesLeft.get(dataset.name) ?? 0, 'file')} to go): counts
                      so far
                    </span>
                  )}
                </td>
                <td className="num">{formatCount(dataset.trajectories)}</td>
                <td className="num">{formatCount(dataset.transitions)}</td>
                <td className="num">{formatCount(dataset.steps)}</td>
                <td>
                  {dataset.domains.map((domain) => (
                    <span key={domain} className="tag">
                      {domain}
                    </span>
                  ))}
                </td>
                <td>
                  {dataset.formats.map((format) => (
                    <span key={format} className="tag tag-muted">
                      {format}
                    </span>
                  ))}
                </td>
                <td className="num">
                  {dataset.quarantined === 0 ? (
                    '0'
                  ) : (
                    <Link
                      to={{ page: 'quarantine', datasetId: dataset.id }}
                      className="warn-link"
                      title="Show the quarantined records"
                    >
                      {formatCount(dataset.quarantined)}
                    </Link>
                  )}
                </td>
                <td className="muted">{formatUtc(dataset.createdAt, 'second')}</td>
                <td>
                  <DeleteDatasetButton dataset={dataset} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
