import type { ReactNode } from 'react';
import { formatCount } from '../../app/format';
import type { ImportOutcome } from './import-request';
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

function statusText(upload: Upload): string {
  switch (upload.status) {
    case 'queued':
      return 'queued';
    case 'uploading':
      return upload.sentBytes >= upload.file.size
        ? 'importing…'
        : `uploading ${formatBytes(upload.sentBytes)} of ${formatBytes(upload.file.size)}`;
    case 'done':
      return 'imported';
    case 'failed':
      return 'failed';
  }
}

/** One file's import: progress while it runs, then the report or the error. */
export function UploadRow({ upload, children }: { upload: Upload; children?: ReactNode }) {
  const fraction = upload.file.size === 0 ? 1 : upload.sentBytes / upload.file.size;
  const finished = upload.status === 'done' || upload.status === 'failed';
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
        <span className={`upload-status status-${upload.status}`}>{statusText(upload)}</span>
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
          {upload.outcome.report.trajectories === 0 && (
            <p className="status status-error" role="alert">
              Nothing could be imported from this file.
            </p>
          )}
          <ImportReportView report={upload.outcome.report} exitCode={upload.outcome.exitCode} />
          <p className="muted">
            {formatCount(upload.outcome.report.trajectories)} trajectories into{' '}
            {upload.outcome.report.dataset}
          </p>
        </>
      )}
    </article>
  );
}
