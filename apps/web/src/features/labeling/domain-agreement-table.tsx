import type { QueueAgreement } from '@terrarium/api';
import { formatStat } from './agreement-data';

/** Between-labeler α per domain of the queue's items; a domain has a row once it has a label. */
export function DomainAgreementTable({ byDomain }: { byDomain: QueueAgreement['byDomain'] }) {
  const domains = Object.entries(byDomain);
  return (
    <section className="panel panel-body" aria-label="By domain">
      <h2>By domain</h2>
      {domains.length === 0 ? (
        <p className="muted" data-testid="by-domain-empty">
          No item is labeled yet. Each domain gets a row once its items have labels; its α needs
          items labeled by at least two labelers.
        </p>
      ) : (
        <>
          <table className="table">
            <thead>
              <tr>
                <th>Domain</th>
                <th>Items</th>
                <th>α ordinal</th>
                <th>95% interval</th>
              </tr>
            </thead>
            <tbody>
              {domains.map(([domain, report]) => (
                <tr key={domain} data-testid={`by-domain-${domain}`}>
                  <td>{domain}</td>
                  <td className="mono">{report.items}</td>
                  <td className="mono">{formatStat(report.krippendorffAlpha.ordinal)}</td>
                  <td className="mono muted">
                    [{formatStat(report.intervals?.ordinal.low)},{' '}
                    {formatStat(report.intervals?.ordinal.high)}]
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {domains.some(([, report]) => report.krippendorffAlpha.ordinal === null) && (
            <p className="muted" data-testid="by-domain-no-alpha">
              — : no α for that domain yet: no item of it is labeled by two labelers, or all its
              labels give the same point (α is undefined without variation).
            </p>
          )}
        </>
      )}
    </section>
  );
}
