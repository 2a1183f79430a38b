import { describe, expect, it } from 'vitest';
import {
  dataFilesOf,
  datasetNameFor,
  defaultDatasetName,
  importUrl,
  readUploadAnswer,
  uploadName,
} from './import-request';

// A file of one run folder (SWE-agent writes one per run), picked with the folder above it.
const inRun = (folder: string, name: string) => ({
  name,
  webkitRelativePath: `demonstrations/${folder}/${name}`,
});

describe('import request', () => {
  it('names a dataset after the file', () => {
    expect(datasetNameFor('retail_results.json')).toBe('retail_results');
    expect(datasetNameFor('bash_gpt4.jsonl.gz')).toBe('bash_gpt4');
    expect(datasetNameFor('astropy__astropy-12907.traj')).toBe('astropy__astropy-12907');
    expect(datasetNameFor('.json')).toBe('.json');
  });

  it('keeps the paths of a picked folder, and what the CLI would import from it', () => {
    // The layout of SWE-agent's own trajectories folder (../shared/data/swe-agent): one folder per
    // run, each trajectory named after its instance, so the names alone repeat.
    const picked = [
      inRun(
        'replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1',
        'marshmallow-code__marshmallow-1867.traj',
      ),
      inRun(
        'replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1',
        'marshmallow-code__marshmallow-1867.traj',
      ),
      inRun(
        'replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1',
        'args.yaml',
      ),
      { name: 'LICENSE', webkitRelativePath: 'demonstrations/LICENSE' },
      { name: 'config', webkitRelativePath: 'demonstrations/.git/config' },
      { name: '.DS_Store', webkitRelativePath: 'demonstrations/.DS_Store' },
    ];
    const kept = dataFilesOf(picked);
    expect(kept.map(uploadName)).toEqual([
      'demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1/marshmallow-code__marshmallow-1867.traj',
      'demonstrations/replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1/marshmallow-code__marshmallow-1867.traj',
    ]);
    expect(kept.map(defaultDatasetName)).toEqual(['demonstrations', 'demonstrations']);
    // Files picked one by one keep their names, and a licence named on its own is still tried.
    const one = { name: 'LICENSE', webkitRelativePath: '' };
    expect(dataFilesOf([one])).toEqual([one]);
    expect(uploadName({ name: 'retail.json', webkitRelativePath: '' })).toBe('retail.json');
    expect(defaultDatasetName({ name: 'retail.json', webkitRelativePath: '' })).toBe('retail');
  });

  it('builds the upload URL with the dataset, the file name and an optional format', () => {
    expect(importUrl('a b.jsonl', 'my set', null)).toBe(
      '/api/import?dataset=my+set&file=a+b.jsonl',
    );
    expect(importUrl('x.traj', 'swe', 'swe-agent')).toBe(
      '/api/import?dataset=swe&file=x.traj&format=swe-agent',
    );
    expect(importUrl('x.traj', 'swe', null, true)).toBe(
      '/api/import?dataset=swe&file=x.traj&background=1',
    );
  });

  it('reads the job a background upload became', () => {
    const job = {
      id: '7',
      dataset: 'retail',
      datasetId: null,
      format: null,
      files: [{ name: 'retail.json', size: 1_723_122 }],
      status: 'queued',
      totalBytes: 1_723_122,
      doneBytes: 0,
      trajectories: 0,
      resumes: 0,
      report: null,
      error: null,
      createdAt: '2026-12-02T05:00:00.000Z',
      finishedAt: null,
    };
    expect(readUploadAnswer(202, JSON.stringify({ job }))).toEqual({ ok: true, job });
    expect(readUploadAnswer(202, '{"job":{"id":7}}')).toEqual({
      ok: false,
      error: 'The server answered with an unexpected job.',
    });
  });

  it('reads a refusal and a non-JSON answer as errors', () => {
    // The bodies as the server's sendError writes them (api/src/http/json-response.ts).
    const refused = {
      error: {
        message: 'dataset: required',
        issues: [{ field: 'dataset', message: 'required' }],
      },
    };
    expect(readUploadAnswer(400, JSON.stringify(refused))).toEqual({
      ok: false,
      error: 'dataset: required',
    });
    const full = {
      error: {
        message:
          'import failed: the server could not store the upload (no space left on the device); nothing was imported',
      },
    };
    expect(readUploadAnswer(507, JSON.stringify(full))).toEqual({
      ok: false,
      error: full.error.message,
    });
    // A string where the message object belongs is not the server's shape: the status is shown.
    expect(readUploadAnswer(400, '{"error":"dataset: required"}')).toEqual({
      ok: false,
      error: 'HTTP 400',
    });
    expect(readUploadAnswer(502, 'Bad Gateway')).toEqual({
      ok: false,
      error: 'HTTP 502: Bad Gateway',
    });
  });
});
