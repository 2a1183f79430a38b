import { useQuery } from '@tanstack/react-query';
import { formatCount } from '../../app/format';
import { Link } from '../../app/link';
import { QueryStatus } from '../../app/query-status';
import { useTRPC } from '../../app/trpc';
import { EMPTY_LIST_QUERY } from '../../app/url-state';

export function QuarantinePage({ datasetId }: { datasetId: string }) {
  const trpc = useTRPC();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const records = useQuery(trpc.datasets.quarantine.queryOptions({ datasetId }));
  const dataset = datasets.data?.find((candidate) => candidate.id === datasetId);
  return (
    <div className="page">
      <div className="breadcrumb">
        <Link to={{ page: 'datasets' }}>Datasets</Link> ›{' '}
        <Link to={{ page: 'trajectories', datasetId, query: EMPTY_LIST_QUERY }}>
          {dataset?.name ?? datasetId}
        </Link>{' '}
        › quarantined records
      </div>
      <h1>Quarantined records{records.data ? ` (${formatCount(records.data.length)})` : ''}</h1>
      <p className="muted">
        Records that could not be imported. The rest of each file was imported; these are kept here
        with the reason so they can be fixed and imported again.
      </p>
      <QueryStatus
        label="quarantined records"
        isPending={records.isPending}
        error={records.error}
      />
      {records.data && (
        <table className="data-table" data-testid="quarantine-table">
          <thead>
            <tr>
              <th>File</th>
              <th className="num">Line</th>
              <th>Reason</th>
              <th>Excerpt</th>
            </tr>
          </thead>
          <tbody>
            {records.data.map((record) => (
              <tr key={record.id}>
                <td className="mono">{record.file}</td>
                <td className="num">
                  {record.line ?? (record.byteOffset === null ? '—' : `byte ${record.byteOffset}`)}
                </td>
                <td>{record.reason}</td>
                <td>
                  <pre className="excerpt">{record.excerpt}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
