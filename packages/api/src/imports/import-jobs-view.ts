import type { ImportJobRecord } from '@terrarium/db';
import { reportOfJob } from '@terrarium/jobs';
import { SourceFormat, type ImportJobView } from '@terrarium/schema';

/** What callers see of an import job: no paths (spooled uploads live in the data folder). */
export function importJobView(job: ImportJobRecord): ImportJobView {
  const format = SourceFormat.safeParse(job.format);
  return {
    id: job.id,
    dataset: job.dataset,
    datasetId: job.datasetId,
    format: format.success ? format.data : null,
    files: job.files.map((file) => ({ name: file.name, size: file.size })),
    status: job.status,
    totalBytes: job.totalBytes,
    doneBytes: job.doneBytes,
    trajectories: job.trajectories,
    resumes: job.resumes,
    report: reportOfJob(job),
    // The stored error may name paths or SQL: the server log has it, callers get the fact.
    error: job.error === null ? null : 'the import stopped on an error (the server log says which)',
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  };
}
