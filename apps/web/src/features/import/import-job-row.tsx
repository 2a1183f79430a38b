import type { ImportJobView } from '@terrarium/schema';
import type { ReactNode } from 'react';
import {
  formatBytes,
  isActive,
  jobFraction,
  jobProgressText,
  resumedText,
} from './import-job-status';
import { importVerdict } from './import-outcome';
import { ImportReportView } from './import-report-view';

function statusText(job: ImportJobView): string {
  switch (job.status) {
    case 'queued':
    case 'running':
      return jobProgressText(job);
    case 'done':
      return job.report === null ? 'imported' : importVerdict(job.report).label;
    case 'failed':
      return 'failed';
    case 'canceled':
      return 'canceled: nothing was kept';
  }
}

/**
 * An import job not started from this page (the CLI, another tab, one the server resumed after a
 * restart): its files, progress, whether it was resumed, Cancel while it runs, then its report.
 */
export function ImportJobRow({
  job,
  onCancel,
  canceling,
  children,
}: {
  job: ImportJobView;
  onCancel: () => void;
  canceling: boolean;
  children?: ReactNode;
}) {
  const resumed = resumedText(job);
  const names = job.files.map((file) => file.name).join(', ');
  const tone =
    job.status === 'done' && job.report !== null ? importVerdict(job.report).tone : job.status;
  return (
    <article
      className={`upload upload-${job.status}`}
      data-testid="import-job"
      data-status={job.status}
      aria-label={`Import into ${job.dataset}`}
    >
      <header className="upload-header">
        <span className="mono">{names}</span>
        <span className="muted">{formatBytes(job.totalBytes)}</span>
        <span className="muted">→ {job.dataset}</span>
        <span className={`upload-status status-${tone}`} data-testid="import-job-status">
          {statusText(job)}
        </span>
        {isActive(job) && (
          <button type="button" onClick={onCancel} disabled={canceling}>
            Cancel
          </button>
        )}
        {children}
      </header>
      {resumed !== null && (
        <p className="muted" data-testid="import-job-resumed">
          {resumed}
        </p>
      )}
      {isActive(job) && (
        <progress
          max={1}
          value={jobFraction(job)}
          aria-label={`Import progress into ${job.dataset}`}
        />
      )}
      {job.status === 'failed' && job.error !== null && (
        <p className="status status-error" role="alert">
          The import failed: {job.error}. Nothing was kept.
        </p>
      )}
      {job.status === 'done' && job.report !== null && <ImportReportView report={job.report} />}
    </article>
  );
}
