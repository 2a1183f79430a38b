import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  SOURCE_FORMAT_DESCRIPTIONS,
  SOURCE_FORMATS,
  someNames,
  type ImportJobView,
  type SourceFormat,
} from '@terrarium/schema';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from '../../app/link';
import { useTRPC } from '../../app/trpc';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { ImportJobRow } from './import-job-row';
import { isActive } from './import-job-status';
import { dataFilesOf, defaultDatasetName, uploadForImport, uploadName } from './import-request';
import { UploadRow, type Upload } from './upload-row';
import { ServerSilentNote } from './server-silent-note';

/** How often the page asks for the imports' progress while one runs. */
const POLL_MS = 1000;
/**
 * With nothing running here, the list is still read now and then: an import started from the CLI
 * or another tab shows up, with its progress and Cancel, without a reload (walk 46).
 */
const IDLE_POLL_MS = 5000;

/** The upload's state once its job has finished; null while it runs. */
function finishedUpload(upload: Upload, job: ImportJobView): Partial<Upload> | null {
  switch (job.status) {
    case 'queued':
    case 'running':
      return null;
    case 'done':
      return job.report === null
        ? { status: 'failed', outcome: { ok: false, error: 'The import ended without a report.' } }
        : { status: 'done', outcome: { ok: true, report: job.report, exitCode: null } };
    case 'canceled':
      return {
        status: 'canceled',
        outcome: { ok: false, error: 'The import was canceled; nothing was kept.' },
      };
    case 'failed':
      return {
        status: 'failed',
        outcome: {
          ok: false,
          error: `The import of ${uploadName(upload.file)} failed: ${job.error ?? 'no reason given'}. Nothing was kept.`,
        },
      };
  }
}

/** The uploads as their jobs left them: an upload whose job ended shows that end. */
function withJobOutcomes(uploads: readonly Upload[], jobs: readonly ImportJobView[]): Upload[] {
  const byId = new Map(jobs.map((job) => [job.id, job]));
  return uploads.map((upload) => {
    if (upload.status !== 'importing' || upload.jobId === null) return upload;
    const job = byId.get(upload.jobId);
    const finished = job === undefined ? null : finishedUpload(upload, job);
    return finished === null ? upload : { ...upload, ...finished };
  });
}

/** Imports listed at first, and added by each "older" click, up to what `imports.list` gives. */
const HISTORY_PAGE = 50;
const MAX_HISTORY = 1000;

/**
 * An import not started here names its dataset as the server has it now: imported, then deleted
 * is said, where "imported" alone read as still there (walk 46).
 */
function openJobDataset(job: ImportJobView) {
  if (job.trajectories === 0) return null;
  if (job.datasetId === null) {
    return (
      <span className="muted" data-testid="dataset-deleted">
        (dataset since deleted)
      </span>
    );
  }
  return (
    <Link to={{ page: 'trajectories', datasetId: job.datasetId, query: EMPTY_LIST_QUERY }}>
      Open {job.dataset}
    </Link>
  );
}

export function ImportPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [files, setFiles] = useState<File[]>([]);
  // A picked folder's files that are not uploaded, named so that nothing is skipped unsaid.
  const [leftOut, setLeftOut] = useState<string[]>([]);
  // One pick at a time: choosing files clears a chosen folder and the other way round.
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [datasetName, setDatasetName] = useState('');
  const [format, setFormat] = useState<SourceFormat | null>(null);
  const [sentUploads, setUploads] = useState<Upload[]>([]);
  const uploadAborts = useRef(new Map<number, AbortController>());
  // The newest imports first; a folder's import is one per file, so older ones are a click away.
  const [historyLimit, setHistoryLimit] = useState(HISTORY_PAGE);
  const jobs = useQuery({
    ...trpc.imports.list.queryOptions({ limit: historyLimit }),
    placeholderData: (previous) => previous,
    refetchInterval: (query) => {
      const list = query.state.data ?? [];
      const waiting = withJobOutcomes(sentUploads, list).some(
        (upload) =>
          upload.status === 'queued' ||
          upload.status === 'uploading' ||
          upload.status === 'importing',
      );
      return waiting || list.some(isActive) ? POLL_MS : IDLE_POLL_MS;
    },
  });
  const jobsById = new Map((jobs.data ?? []).map((job) => [job.id, job]));
  // An upload follows its job: when the job ends, the row shows how (derived while rendering, so
  // a row never waits for an effect to catch up with the job list).
  const uploads = withJobOutcomes(sentUploads, jobs.data ?? []);
  // Uploads of this page that ended, and imports from elsewhere (the CLI, another tab) done.
  const ended =
    uploads.filter((upload) => upload.jobId !== null && upload.status !== 'importing').length +
    (jobs.data ?? []).filter((job) => job.status === 'done').length;
  const cancel = useMutation(trpc.imports.cancel.mutationOptions());
  const busy = uploads.some(
    (upload) => upload.status === 'queued' || upload.status === 'uploading',
  );

  const update = (id: number, change: Partial<Upload>) =>
    setUploads((current) =>
      current.map((upload) => (upload.id === id ? { ...upload, ...change } : upload)),
    );

  // A finished import changes the datasets and trajectories the other pages list.
  useEffect(() => {
    if (ended === 0) return;
    void queryClient.invalidateQueries(trpc.datasets.pathFilter());
    void queryClient.invalidateQueries(trpc.trajectories.pathFilter());
  }, [ended, queryClient, trpc]);

  async function importFiles(event: FormEvent) {
    event.preventDefault();
    const batch: Upload[] = files.map((file, position) => ({
      id: Date.now() + position,
      file,
      dataset: datasetName.trim() || defaultDatasetName(file),
      status: 'queued',
      sentBytes: 0,
      jobId: null,
      outcome: null,
    }));
    setUploads((current) => [...batch, ...current]);
    // The pick is on its way: a second click must not send it again.
    setFiles([]);
    setLeftOut([]);
    for (const input of [filesInput.current, folderInput.current]) if (input) input.value = '';
    // One upload at a time: the server imports them one after the other anyway.
    for (const upload of batch) {
      const abort = new AbortController();
      uploadAborts.current.set(upload.id, abort);
      update(upload.id, { status: 'uploading' });
      const answer = await uploadForImport(
        upload.file,
        upload.dataset,
        format,
        (sentBytes) => update(upload.id, { sentBytes }),
        abort.signal,
      );
      uploadAborts.current.delete(upload.id);
      if (answer.ok) {
        update(upload.id, { status: 'importing', jobId: answer.job.id });
        await queryClient.invalidateQueries(trpc.imports.pathFilter());
      } else {
        update(upload.id, {
          status: abort.signal.aborted ? 'canceled' : 'failed',
          outcome: answer,
        });
      }
    }
  }

  function cancelUpload(upload: Upload) {
    if (upload.jobId === null) {
      uploadAborts.current.get(upload.id)?.abort();
      return;
    }
    cancel.mutate(
      { jobId: upload.jobId },
      { onSettled: () => void queryClient.invalidateQueries(trpc.imports.pathFilter()) },
    );
  }

  const ownJobs = new Set(
    uploads.flatMap((upload) => (upload.jobId === null ? [] : [upload.jobId])),
  );
  const otherJobs = (jobs.data ?? []).filter((job) => !ownJobs.has(job.id));
  const datasetIdByName = new Map(datasets.data?.map((dataset) => [dataset.name, dataset.id]));
  // Offered only where this import stored something: a file that added nothing to an existing
  // dataset would otherwise open trajectories it did not bring.
  const openDataset = (name: string, imported: number) => {
    const datasetId = datasetIdByName.get(name);
    return datasetId === undefined || imported === 0 ? null : (
      <Link to={{ page: 'trajectories', datasetId, query: EMPTY_LIST_QUERY }}>Open {name}</Link>
    );
  };
  return (
    <div className="page">
      <h1>Import trajectories</h1>
      <p className="muted">
        Files are uploaded to the server and imported there as jobs, with format auto-detection: you
        can leave this page, and an import interrupted by a restart continues where it stopped.
        Records that cannot be read are quarantined with their file, line and reason; the rest is
        imported. A file in no known format is listed with the reason, and nothing of it is stored.
      </p>
      <form className="import-form" onSubmit={importFiles} aria-label="Import files">
        <label className="field">
          <span>Files</span>
          <input
            ref={filesInput}
            type="file"
            multiple
            aria-label="Trajectory files"
            data-testid="import-files"
            onChange={(event) => {
              if (folderInput.current) folderInput.current.value = '';
              setFiles(Array.from(event.target.files ?? []));
              setLeftOut([]);
            }}
          />
        </label>
        <label className="field">
          <span>or a folder</span>
          <input
            ref={(input) => {
              folderInput.current = input;
              // Not in React's typings; Chromium, Firefox and Safari all pick folders with it.
              input?.setAttribute('webkitdirectory', '');
            }}
            type="file"
            aria-label="Trajectory folder"
            data-testid="import-folder"
            onChange={(event) => {
              if (filesInput.current) filesInput.current.value = '';
              const picked = Array.from(event.target.files ?? []);
              const kept = dataFilesOf(picked);
              setFiles(kept);
              setLeftOut(
                picked
                  .filter((file) => !kept.includes(file))
                  .map(uploadName)
                  .toSorted(),
              );
            }}
          />
          <small className="muted">
            its files keep their paths in it, as the CLI keeps them (SWE-agent tells runs apart by
            folder); licences, notes and configs are left out
          </small>
          {leftOut.length > 0 && (
            <small className="muted" data-testid="import-left-out" title={leftOut.join('\n')}>
              Left out {leftOut.length === 1 ? '1 file' : `${leftOut.length} files`}:{' '}
              {someNames(leftOut)}
            </small>
          )}
        </label>
        <label className="field">
          <span>Dataset</span>
          <input
            type="text"
            aria-label="Dataset name"
            placeholder="default: each file's name"
            value={datasetName}
            onChange={(event) => setDatasetName(event.target.value)}
            list="known-datasets"
          />
          <datalist id="known-datasets">
            {datasets.data?.map((dataset) => (
              <option key={dataset.id} value={dataset.name} />
            ))}
          </datalist>
        </label>
        <label className="field">
          <span>Format</span>
          <select
            aria-label="Format"
            value={format ?? ''}
            onChange={(event) =>
              setFormat(
                SOURCE_FORMATS.find((candidate) => candidate === event.target.value) ?? null,
              )
            }
          >
            <option value="">auto-detect</option>
            {SOURCE_FORMATS.map((candidate) => (
              <option key={candidate} value={candidate}>
                {candidate}
              </option>
            ))}
          </select>
          <small className="muted" data-testid="format-description">
            {format === null
              ? 'read from the start of each file'
              : SOURCE_FORMAT_DESCRIPTIONS[format]}
          </small>
        </label>
        <button type="submit" className="primary" disabled={files.length === 0 || busy}>
          {busy
            ? 'Uploading…'
            : files.length === 0
              ? 'Import files'
              : `Import ${files.length === 1 ? '1 file' : `${files.length} files`}`}
        </button>
      </form>
      <ServerSilentNote
        silent={jobs.isError}
        importing={
          uploads.filter((upload) => upload.status === 'importing').length +
          otherJobs.filter(isActive).length
        }
        lastAnswerAt={jobs.dataUpdatedAt}
      />
      {uploads.length > 0 && (
        <section className="uploads" aria-label="Imports">
          {uploads.map((upload) => (
            <UploadRow
              key={upload.id}
              upload={upload}
              job={upload.jobId === null ? null : (jobsById.get(upload.jobId) ?? null)}
              onCancel={() => cancelUpload(upload)}
            >
              {upload.status === 'done' &&
                upload.outcome?.ok === true &&
                openDataset(upload.dataset, upload.outcome.report.trajectories)}
            </UploadRow>
          ))}
        </section>
      )}
      {otherJobs.length > 0 && (
        <section className="uploads" aria-label="Other imports">
          <h2>Imports</h2>
          {otherJobs.map((job) => (
            <ImportJobRow
              key={job.id}
              job={job}
              canceling={cancel.isPending}
              onCancel={() =>
                cancel.mutate(
                  { jobId: job.id },
                  {
                    onSettled: () => void queryClient.invalidateQueries(trpc.imports.pathFilter()),
                  },
                )
              }
            >
              {job.status === 'done' && openJobDataset(job)}
            </ImportJobRow>
          ))}
          {(jobs.data?.length ?? 0) >= historyLimit && historyLimit < MAX_HISTORY && (
            <button
              type="button"
              data-testid="older-imports"
              onClick={() =>
                setHistoryLimit((limit) => Math.min(MAX_HISTORY, limit + HISTORY_PAGE))
              }
            >
              Show {HISTORY_PAGE} older imports
            </button>
          )}
        </section>
      )}
    </div>
  );
}
