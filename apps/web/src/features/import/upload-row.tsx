import type { ReactNode } from 'react';
import { formatCount } from '../../app/format';
import type { ImportOutcome } from './import-request';
import { importVerdict, type ImportVerdict } from './import-outcome';
import { ImportReportView } from './import-report-view';

export interface Upload {
  id: number;
  file: File;
  dataset: string;
  status: 'queued' | 'uploading' | 'done' | 'failed';
  sentBytes: number;
  outcome: ImportOutcome | null;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function statusText(upload: Upload, verdict: ImportVerdict | null): string {
  switch (upload.status) {
    case 'queued':
      return 'queued';
    case 'uploading':
      return upload.sentBytes >= upload.file.size
        ? 'importing…'
        : `uploading ${formatBytes(upload.sentBytes)} of ${formatBytes(upload.file.size)}`;
    case 'done':
      return verdict?.label ?? 'imported';
    case 'failed':
      return 'failed';
  }
}

/** One file's import: progress while it runs, then the report or the error. */
export function UploadRow({ upload, children }: { upload: Upload; children?: ReactNode }) {
  const fraction = upload.file.size === 0 ? 1 : upload.sentBytes / upload.file.size;
  const finished = upload.status === 'done' || upload.status === 'failed';
  const verdict = upload.outcome?.ok === true ? importVerdict(upload.outcome.report) : null;
  const tone = verdict?.tone ?? upload.status;
  return (
    <article
      className={`upload upload-${upload.status}`}
      data-testid="upload"
      data-status={upload.status}
      aria-label={`Import of ${upload.file.name}`}
    >
      <header className="upload-header">
        <span className="mono">{upload.file.name}</span>
        <span className="muted">{formatBytes(upload.file.size)}</span>
        <span className="muted">→ {upload.dataset}</span>
        <span
          className={`upload-status status-${tone}`}
          data-testid="upload-verdict"
          data-tone={tone}
        >
          {statusText(upload, verdict)}
        </span>
        {children}
      </header>
      {!finished && (
        <progress
          max={1}
          value={upload.status === 'queued' ? 0 : Math.min(fraction, 1)}
          aria-label={`Upload progress of ${upload.file.name}`}
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
          <p className="muted">
            {formatCount(upload.outcome.report.trajectories)} trajectories into{' '}
            {upload.outcome.report.dataset}
          </p>
        </>
      )}
    </article>
  );
}
