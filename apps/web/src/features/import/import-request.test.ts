import { describe, expect, it } from 'vitest';
import { datasetNameFor, importUrl, readImportResponse } from './import-request';

describe('import request', () => {
  it('names a dataset after the file', () => {
    expect(datasetNameFor('retail_results.json')).toBe('retail_results');
    expect(datasetNameFor('bash_gpt4.jsonl.gz')).toBe('bash_gpt4');
    expect(datasetNameFor('astropy__astropy-12907.traj')).toBe('astropy__astropy-12907');
    expect(datasetNameFor('.json')).toBe('.json');
  });

  it('builds the upload URL with the dataset, the file name and an optional format', () => {
    expect(importUrl('a b.jsonl', 'my set', null)).toBe(
      '/api/import?dataset=my+set&file=a+b.jsonl',
    );
    expect(importUrl('x.traj', 'swe', 'swe-agent')).toBe(
      '/api/import?dataset=swe&file=x.traj&format=swe-agent',
    );
  });

  it('reads a report with its errors and exit code', () => {
    const body = {
      dataset: 'bad',
      format: 'openai-messages',
      trajectories: 2,
      transitions: 5,
      quarantined: 1,
      errors: [{ file: 'bad.jsonl', line: 3, byteOffset: null, reason: 'Unexpected token' }],
      exitCode: 2,
    };
    expect(readImportResponse(200, JSON.stringify(body))).toEqual({
      ok: true,
      exitCode: 2,
      report: {
        dataset: 'bad',
        format: 'openai-messages',
        trajectories: 2,
        transitions: 5,
        quarantined: 1,
        errors: [{ file: 'bad.jsonl', line: 3, byteOffset: null, reason: 'Unexpected token' }],
      },
    });
  });

  it('reads a 400 error and a non-JSON answer as errors', () => {
    expect(readImportResponse(400, '{"error":"dataset: required"}')).toEqual({
      ok: false,
      error: 'dataset: required',
    });
    expect(readImportResponse(502, 'Bad Gateway')).toEqual({
      ok: false,
      error: 'HTTP 502: Bad Gateway',
    });
  });
});
