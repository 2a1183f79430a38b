import type { Row, SqlExecutor } from './executor';
import { toJsonPayload } from './json-payload';
import { intColumn, jsonColumn, nullableTextColumn, textColumn, ISO_UTC, oneOfColumn } from './row';

export type ImportJobStatus = 'queued' | 'running' | 'done' | 'failed' | 'canceled';

/** A file an import job reads: as the user named it, and where this machine reads it from. */
export interface ImportJobFile {
  name: string;
  path: string;
  size: number;
}

export interface NewImportJob {
  dataset: string;
  format: string | null;
  files: ImportJobFile[];
  /** The files are uploads spooled into the data folder: the job deletes them when it ends. */
  ownsFiles: boolean;
}

export interface ImportJobRecord {
  id: string;
  dataset: string;
  /** The id of the dataset of that name now: null before it exists, and once it is deleted. */
  datasetId: string | null;
  format: string | null;
  files: ImportJobFile[];
  ownsFiles: boolean;
  status: ImportJobStatus;
  batchId: string | null;
  /** The batch's own status: `complete` once its rows are visible (null: no batch yet). */
  batchStatus: 'importing' | 'complete' | null;
  totalBytes: number;
  /** Bytes of the files behind the last committed group. */
  doneBytes: number;
  /** Trajectories in committed groups. */
  trajectories: number;
  /** Times the job was taken up again after its process stopped mid-way. */
  resumes: number;
  /** Where a resumed run continues, and the report so far (the caller validates it). */
  checkpoint: unknown;
  /** The report of a finished job (the caller validates it). */
  report: unknown;
  error: string | null;
  /** ISO 8601 UTC. */
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

/** Imports as jobs (migration 014). */
export interface ImportJobStore {
  createImportJob(job: NewImportJob): Promise<ImportJobRecord>;
  getImportJob(jobId: string): Promise<ImportJobRecord | null>;
  /** Newest first, at most `limit`. */
  listImportJobs(limit?: number): Promise<ImportJobRecord[]>;
  /**
   * Marks a queued or running job running and returns it; a job that was already running (its
   * process stopped) counts one more resume. Null when the job is finished or unknown.
   */
  startImportJob(jobId: string): Promise<ImportJobRecord | null>;
  setImportJobBatch(jobId: string, batchId: string): Promise<void>;
  /**
   * Finishes a job (done, failed or canceled) with its report or error. With `onlyFrom`, only a
   * job in one of those statuses changes; returns whether this call changed it.
   */
  finishImportJob(
    jobId: string,
    status: 'done' | 'failed' | 'canceled',
    outcome: { report?: unknown; error?: string | null },
    onlyFrom?: readonly ImportJobStatus[],
  ): Promise<boolean>;
}

const ID_PATTERN = /^[1-9]\d{0,18}$/;
const iso = (column: string) => `to_char(j.${column} AT TIME ZONE 'UTC', ${ISO_UTC}) AS ${column}`;
const COLUMNS = `j.id::text AS id, j.dataset,
  (SELECT d.id::text FROM datasets d WHERE d.name = j.dataset) AS dataset_id,
  j.format, j.files, j.owns_files, j.status,
  j.batch_id::text AS batch_id, b.status AS batch_status, j.total_bytes::float8 AS total_bytes,
  j.done_bytes::float8 AS done_bytes, j.trajectories, j.resumes, j.checkpoint, j.report, j.error,
  ${iso('created_at')}, ${iso('updated_at')}, ${iso('finished_at')}`;
const FROM = 'import_jobs j LEFT JOIN import_batches b ON b.id = j.batch_id';
const STATUSES: readonly ImportJobStatus[] = ['queued', 'running', 'done', 'failed', 'canceled'];

function batchStatusOf(value: string | null): ImportJobRecord['batchStatus'] {
  if (value === null) return null;
  if (value === 'importing' || value === 'complete') return value;
  throw new Error(`unknown import batch status ${value}`);
}

function filesOf(value: unknown): ImportJobFile[] {
  if (!Array.isArray(value)) throw new Error('column files: expected a list');
  return value.map((file: unknown) => {
    if (
      typeof file === 'object' &&
      file !== null &&
      'name' in file &&
      typeof file.name === 'string' &&
      'path' in file &&
      typeof file.path === 'string' &&
      'size' in file &&
      typeof file.size === 'number'
    ) {
      return { name: file.name, path: file.path, size: file.size };
    }
    throw new Error('column files: expected {name, path, size}');
  });
}

function numberColumn(row: Row, key: string): number {
  const value = row[key];
  if (typeof value !== 'number') throw new Error(`column ${key}: expected a number`);
  return value;
}

function jobOf(row: Row): ImportJobRecord {
  return {
    id: textColumn(row, 'id'),
    dataset: textColumn(row, 'dataset'),
    datasetId: nullableTextColumn(row, 'dataset_id'),
    format: nullableTextColumn(row, 'format'),
    files: filesOf(jsonColumn(row, 'files')),
    ownsFiles: row['owns_files'] === true,
    status: oneOfColumn(row, 'status', STATUSES, 'import job status'),
    batchId: nullableTextColumn(row, 'batch_id'),
    batchStatus: batchStatusOf(nullableTextColumn(row, 'batch_status')),
    totalBytes: numberColumn(row, 'total_bytes'),
    doneBytes: numberColumn(row, 'done_bytes'),
    trajectories: intColumn(row, 'trajectories'),
    resumes: intColumn(row, 'resumes'),
    checkpoint: jsonColumn(row, 'checkpoint') ?? null,
    report: jsonColumn(row, 'report') ?? null,
    error: nullableTextColumn(row, 'error'),
    createdAt: textColumn(row, 'created_at'),
    updatedAt: textColumn(row, 'updated_at'),
    finishedAt: nullableTextColumn(row, 'finished_at'),
  };
}

export function createImportJobStore(executor: SqlExecutor): ImportJobStore {
  async function byId(jobId: string): Promise<ImportJobRecord | null> {
    if (!ID_PATTERN.test(jobId)) return null;
    const [row] = await executor.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE j.id = $1::bigint`, [
      jobId,
    ]);
    return row === undefined ? null : jobOf(row);
  }

  return {
    async createImportJob(job) {
      const totalBytes = job.files.reduce((sum, file) => sum + file.size, 0);
      const [row] = await executor.query(
        `INSERT INTO import_jobs (dataset, format, files, owns_files, total_bytes)
         VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING id::text AS id`,
        [job.dataset, job.format, toJsonPayload(job.files), job.ownsFiles, totalBytes],
      );
      if (row === undefined) throw new Error('import job insert returned no row');
      const created = await byId(textColumn(row, 'id'));
      if (created === null) throw new Error('the new import job vanished');
      return created;
    },

    getImportJob: byId,

    async listImportJobs(limit = 50) {
      const rows = await executor.query(
        `SELECT ${COLUMNS} FROM ${FROM} ORDER BY j.id DESC LIMIT $1::int`,
        [Math.max(1, Math.min(500, Math.trunc(limit)))],
      );
      return rows.map(jobOf);
    },

    async startImportJob(jobId) {
      if (!ID_PATTERN.test(jobId)) return null;
      const rows = await executor.query(
        `UPDATE import_jobs SET status = 'running', updated_at = now(),
           resumes = resumes + CASE WHEN status = 'running' THEN 1 ELSE 0 END
         WHERE id = $1::bigint AND status IN ('queued', 'running') RETURNING id`,
        [jobId],
      );
      return rows.length === 0 ? null : byId(jobId);
    },

    async setImportJobBatch(jobId, batchId) {
      await executor.query(
        `UPDATE import_jobs SET batch_id = $2::bigint, updated_at = now() WHERE id = $1::bigint`,
        [jobId, batchId],
      );
    },

    async finishImportJob(jobId, status, outcome, onlyFrom) {
      if (!ID_PATTERN.test(jobId)) return false;
      const rows = await executor.query(
        `UPDATE import_jobs SET status = $2, report = coalesce($3::jsonb, report),
           error = $4, updated_at = now(), finished_at = now()
         WHERE id = $1::bigint AND ($5::text[] IS NULL OR status = ANY ($5::text[]))
         RETURNING id`,
        [
          jobId,
          status,
          outcome.report === undefined ? null : toJsonPayload(outcome.report),
          outcome.error ?? null,
          onlyFrom === undefined ? null : [...onlyFrom],
        ],
      );
      return rows.length > 0;
    },
  };
}
