import { readFileSync } from 'node:fs';
import { expect, type APIRequestContext } from '@playwright/test';
import { programHeaders } from './token';
import { sharedDataPath } from '../../packages/schema/src/testing/shared-data.ts';

// e2e has no package.json of its own, so '@terrarium/schema/testing' does not resolve here: the one
// test-data resolver is imported by path (shipped MIT copies first, then ../shared/data).
export { sharedDataPath };

export const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

function numberField(value: unknown, key: string): number {
  const found = field(value, key);
  if (typeof found !== 'number') throw new Error(`expected a number at ${key}`);
  return found;
}

function stringField(value: unknown, key: string): string {
  const found = field(value, key);
  if (typeof found !== 'string') throw new Error(`expected a string at ${key}`);
  return found;
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export interface ImportResult {
  dataset: string;
  trajectories: number;
  transitions: number;
  quarantined: number;
}

/** Imports one file through POST /api/import, as the CLI and the UI do, and returns its report. */
export async function importThroughApi(
  request: APIRequestContext,
  file: string,
  dataset: string,
  format?: string,
): Promise<ImportResult> {
  const params = new URLSearchParams({ dataset, file: file.split('/').pop() ?? file });
  if (format) params.set('format', format);
  const response = await request.post(`/api/import?${params.toString()}`, {
    data: readFileSync(file),
    headers: { ...programHeaders(), 'content-type': 'application/octet-stream' },
  });
  expect(response.status()).toBe(200);
  const report: unknown = await response.json();
  return {
    dataset: stringField(report, 'dataset'),
    trajectories: numberField(report, 'trajectories'),
    transitions: numberField(report, 'transitions'),
    quarantined: numberField(report, 'quarantined'),
  };
}

export async function datasetIdByName(request: APIRequestContext, name: string): Promise<string> {
  const response = await request.get('/api/datasets', { headers: programHeaders() });
  expect(response.status()).toBe(200);
  const datasets: unknown = await response.json();
  if (!Array.isArray(datasets)) throw new Error('/api/datasets: expected an array');
  const found = datasets.find((dataset) => field(dataset, 'name') === name);
  return stringField(found, 'id');
}

async function trpcQuery(request: APIRequestContext, path: string, input: unknown) {
  const response = await request.get(`/trpc/${path}`, {
    headers: programHeaders(),
    params: { input: JSON.stringify(input) },
  });
  expect(response.status()).toBe(200);
  const body: unknown = await response.json();
  return field(field(body, 'result'), 'data');
}

export interface TrajectoryRef {
  id: string;
  externalId: string;
}

/** Every trajectory of a dataset with its store id, for opening one whose source id is known. */
export async function trajectoriesOf(
  request: APIRequestContext,
  datasetId: string,
): Promise<TrajectoryRef[]> {
  const page = await trpcQuery(request, 'trajectories.list', {
    filter: { datasetId },
    offset: 0,
    limit: 500,
  });
  const rows = field(page, 'rows');
  if (!Array.isArray(rows)) throw new Error('trajectories.list: expected rows');
  return rows.map((row: unknown) => ({
    id: stringField(row, 'id'),
    externalId: stringField(row, 'externalId'),
  }));
}

export async function trajectoryIdOf(
  request: APIRequestContext,
  datasetId: string,
  externalId: string,
): Promise<string> {
  const found = (await trajectoriesOf(request, datasetId)).find(
    (row) => row.externalId === externalId,
  );
  if (!found) throw new Error(`no trajectory ${externalId} in dataset ${datasetId}`);
  return found.id;
}

/** A tRPC mutation as a program sends it (the CLI, a script): the program token, JSON input. */
export async function trpcMutation(
  request: APIRequestContext,
  procedure: string,
  input: unknown,
): Promise<unknown> {
  const response = await request.post(`/trpc/${procedure}`, {
    headers: { ...programHeaders(), 'content-type': 'application/json' },
    data: JSON.stringify(input),
  });
  expect(response.status()).toBe(200);
  const body: unknown = await response.json();
  return field(field(body, 'result'), 'data');
}

/**
 * Starts a bench run as a program does (the CLI, a training script): `bench.startRun` with the
 * program token, not through the page. Returns the run's id.
 */
export async function startRunThroughApi(
  request: APIRequestContext,
  bench: string,
  sims: string[],
): Promise<string> {
  return stringField(await trpcMutation(request, 'bench.startRun', { bench, sims }), 'id');
}
