import { useQuery, useQueryClient } from '@tanstack/react-query';
import { SOURCE_FORMATS, type SourceFormat } from '@terrarium/schema';
import { useState, type FormEvent } from 'react';
import { Link } from '../../app/link';
import { useTRPC } from '../../app/trpc';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { datasetNameFor, uploadForImport } from './import-request';
import { UploadRow, type Upload } from './upload-row';

export function ImportPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [files, setFiles] = useState<File[]>([]);
  const [datasetName, setDatasetName] = useState('');
  const [format, setFormat] = useState<SourceFormat | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const busy = uploads.some(
    (upload) => upload.status === 'queued' || upload.status === 'uploading',
  );

  const update = (id: number, change: Partial<Upload>) =>
    setUploads((current) =>
      current.map((upload) => (upload.id === id ? { ...upload, ...change } : upload)),
    );

  async function importFiles(event: FormEvent) {
    event.preventDefault();
    const batch: Upload[] = files.map((file, position) => ({
      id: Date.now() + position,
      file,
      dataset: datasetName.trim() || datasetNameFor(file.name),
      status: 'queued',
      sentBytes: 0,
      outcome: null,
    }));
    setUploads((current) => [...batch, ...current]);
    // One file at a time: each import is a transaction of its own on the server.
    for (const upload of batch) {
      update(upload.id, { status: 'uploading' });
      const outcome = await uploadForImport(upload.file, upload.dataset, format, (sentBytes) =>
        update(upload.id, { sentBytes }),
      );
      update(upload.id, { status: outcome.ok ? 'done' : 'failed', outcome });
      await queryClient.invalidateQueries(trpc.datasets.pathFilter());
      await queryClient.invalidateQueries(trpc.trajectories.pathFilter());
    }
  }

  const datasetIdByName = new Map(datasets.data?.map((dataset) => [dataset.name, dataset.id]));
  return (
    <div className="page">
      <h1>Import trajectories</h1>
      <p className="muted">
        Files are streamed to the server and imported with format auto-detection. Records that
        cannot be read are quarantined with their file, line and reason; the rest is imported.
      </p>
      <form className="import-form" onSubmit={importFiles} aria-label="Import files">
        <label className="field">
          <span>Files</span>
          <input
            type="file"
            multiple
            aria-label="Trajectory files"
            data-testid="import-files"
            onChange={(event) => setFiles(Array.from(event.target.files ?? []))}
          />
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
        </label>
        <button type="submit" className="primary" disabled={files.length === 0 || busy}>
          {busy
            ? 'Importing…'
            : `Import ${files.length === 1 ? '1 file' : `${files.length} files`}`}
        </button>
      </form>
      {uploads.length > 0 && (
        <section className="uploads" aria-label="Imports">
          {uploads.map((upload) => {
            const datasetId = datasetIdByName.get(upload.dataset);
            return (
              <UploadRow key={upload.id} upload={upload}>
                {upload.status === 'done' && datasetId !== undefined && (
                  <Link to={{ page: 'trajectories', datasetId, query: EMPTY_LIST_QUERY }}>
                    Open {upload.dataset}
                  </Link>
                )}
              </UploadRow>
            );
          })}
        </section>
      )}
    </div>
  );
}
