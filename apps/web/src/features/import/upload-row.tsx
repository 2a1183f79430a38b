import type { ImportJobView } from '@terrarium/schema';
import type { ReactNode } from 'react';
import { formatBytes, jobFraction, jobProgressText, resumedText } from './import-job-status';
import { uploadName, type ImportOutcome } from './import-request';
import { importVerdict, type ImportVerdict } from './import-outcome';
import { ImportReportView } from './import-report-view';

export interface Upload {
  id: number;
  file: File;
  dataset: string;
  /** `importing`: the file is on the server and its import job runs there. */
  status: 'queued' | 'uploading' | 'importing' | 'done' | 'failed' | 'canceled';
  sentBytes: number;
  /** The import job the upload became, once the server has the file. */
  jobId: string | null;
  outcome: ImportOutcome | null;
}

function statusText(upload: Upload, job: ImportJobView | null, verdict: ImportVerdict | null) {
  switch (upload.status) {
    case 'queued':
      return 'queued';
    case 'uploading':
      return `uploading ${formatBytes(upload.sentBytes)} of ${formatBytes(upload.file.size)}`;
    case 'importing':
      return job === null ? 'importing…' : jobProgressText(job);
    case 'done':
      return verdict?.label ?? 'imported';
    case 'failed':
      return 'failed';
    case 'canceled':
      return 'canceled';
  }
}

/**
 * One file's import: upload progress, then the import job's (stored share, trajectories so far),
 * a Cancel button while either runs, then the report or the error.
 */
export function UploadRow({
  upload,
  job = null,
  onCancel,
  children,
}: {
  upload: Upload;
  job?: ImportJobView | null;
  onCancel?: () => void;
  children?: ReactNode;
}) {
  const uploading = upload.status === 'queued' || upload.status === 'uploading';
  const fraction = uploading
    ? upload.file.size === 0
      ? 1
      : upload.sentBytes / upload.file.size
    : job === null
      ? 0
      : jobFraction(job);
  const finished =
    upload.status === 'done' || upload.status === 'failed' || upload.status === 'canceled';
  const verdict = upload.outcome?.ok === true ? importVerdict(upload.outcome.report) : null;
  const tone = verdict?.tone ?? upload.status;
  const resumed = job === null ? null : resumedText(job);
  return (
    <article
      className={`upload upload-${upload.status}`}
      data-testid="upload"
      data-status={upload.status}
      aria-label={`Import of ${uploadName(upload.file)}`}
    >
      <header className="upload-header">
        <span className="mono">{uploadName(upload.file)}</span>
        <span className="muted">{formatBytes(upload.file.size)}</span>
        <span className="muted">→ {upload.dataset}</span>
        <span
          className={`upload-status status-${tone}`}
          data-testid="upload-verdict"
          data-tone={tone}
        >
          {statusText(upload, job, verdict)}
        </span>
        {!finished && onCancel !== undefined && (
          <button type="button" onClick={onCancel} data-testid="upload-cancel">
            Cancel
          </button>
        )}
        {children}
      </header>
      {resumed !== null && (
        <p className="muted" data-testid="upload-resumed">
          {resumed}
        </p>
      )}
      {!finished && (
        <progress
          max={1}
          value={upload.status === 'queued' ? 0 : Math.min(fraction, 1)}
          aria-label={`${uploading ? 'Upload' : 'Import'} progress of ${uploadName(upload.file)}`}
        />
      )}
      {upload.outcome?.ok === false && (
        <p className="status status-error" role="alert">
          {upload.outcome.error}
        </p>
      )}
      {upload.outcome?.ok === true && (
        <>
          {verdict?.detail && (
            <p
              className={`status ${verdict.tone === 'failed' ? 'status-error' : 'status-partial'}`}
              role={verdict.tone === 'failed' ? 'alert' : 'status'}
            >
              {verdict.detail}
            </p>
          )}
          <ImportReportView report={upload.outcome.report} />
        </>
      )}
    </article>
  );
}
