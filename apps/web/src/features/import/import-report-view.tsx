import { warningPlace, type ImportReport } from '@terrarium/schema';
import { formatCount } from '../../app/format';
import { TRANSITIONS_TITLE } from '../../app/count-titles';

export function ImportReportView({ report }: { report: ImportReport }) {
  return (
    <div className="import-report" data-testid="import-report">
      <dl className="report-counts">
        <dt>Dataset</dt>
        <dd>{report.dataset}</dd>
        <dt>Format</dt>
        <dd>{report.format ?? 'unknown'}</dd>
        <dt>Trajectories</dt>
        <dd data-testid="report-trajectories">{formatCount(report.trajectories)}</dd>
        <dt title={TRANSITIONS_TITLE}>Transitions</dt>
        <dd data-testid="report-transitions">{formatCount(report.transitions)}</dd>
        <dt>Quarantined</dt>
        <dd data-testid="report-quarantined">{formatCount(report.quarantined)}</dd>
      </dl>
      {(report.warnings ?? []).length > 0 && (
        <ul className="import-warnings" data-testid="import-warnings">
          {(report.warnings ?? []).map((warning, position) => {
            const place = warningPlace(warning);
            return (
              <li key={position}>
                {place !== null && (
                  <>
                    <span className="mono">{place}</span>:{' '}
                  </>
                )}
                {warning.reason}
              </li>
            );
          })}
        </ul>
      )}
      {report.errors.length > 0 && (
        <table className="data-table errors-table" data-testid="import-errors">
          <thead>
            <tr>
              <th>File</th>
              <th className="num">Line</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {report.errors.map((error, position) => (
              <tr key={position}>
                <td className="mono">{error.file}</td>
                <td className="num">
                  {error.line ?? (error.byteOffset === null ? '—' : `byte ${error.byteOffset}`)}
                </td>
                <td>{error.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
