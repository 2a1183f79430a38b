import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { BenchManifest, DatasetSummary } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { BuildBenchForm } from './build-bench-form';

afterEach(cleanup);

/** The shipped tau2 retail results as `terrarium import` lists them. */
const RETAIL: DatasetSummary = {
  id: '3',
  name: 'tau2-retail',
  createdAt: '2026-12-04T05:00:00.000Z',
  trajectories: 40,
  transitions: 656,
  steps: 1504,
  quarantined: 0,
  domains: ['tool'],
  formats: ['tau2-bench'],
  outcomes: ['failure', 'success'],
};

/** What bench.build answers for a cap of 50 on the one stratum. */
const MANIFEST: BenchManifest = {
  name: 'quick',
  version: 1,
  createdAt: '2026-12-05T10:00:00.000Z',
  sampling: { kind: 'all' },
  seed: 0,
  sources: ['tau2-retail'],
  devFraction: 0,
  itemCount: 50,
  duplicatesDropped: 0,
  byTask: { 'tau2-bench/retail': 50 },
  contentHash: 'f00d',
};

function renderForm() {
  const api = fakeApiClient(({ path }) => {
    if (path === 'datasets.list') return [RETAIL];
    if (path === 'bench.build') return MANIFEST;
    if (path === 'bench.list') return [];
    throw new Error(`unexpected call ${path}`);
  });
  renderWithApi(<BuildBenchForm />, api.client);
  return api;
}

/** Names the bench, takes every transition of tau2-retail and sets the cap to `maxPerTask`. */
async function fill(maxPerTask: string) {
  fireEvent.change(screen.getByRole('textbox', { name: 'Bench name' }), {
    target: { value: 'quick' },
  });
  fireEvent.click(await screen.findByRole('checkbox', { name: /tau2-retail/ }));
  fireEvent.change(screen.getByRole('combobox', { name: 'Sampling' }), {
    target: { value: 'all' },
  });
  fireEvent.change(screen.getByRole('textbox', { name: 'Max per task' }), {
    target: { value: maxPerTask },
  });
  fireEvent.click(screen.getByRole('button', { name: 'Build bench' }));
}

describe('BuildBenchForm', () => {
  it('sends the cap per task stratum with the build, as --max-per-task does', async () => {
    const api = renderForm();
    await fill('50');
    await waitFor(() => expect(api.calls.map((call) => call.path)).toContain('bench.build'));
    expect(api.calls.find((call) => call.path === 'bench.build')?.input).toEqual({
      name: 'quick',
      datasets: ['tau2-retail'],
      sampling: { kind: 'all' },
      seed: 0,
      devFraction: 0,
      maxItemsPerTask: 50,
    });
    expect((await screen.findByTestId('build-result')).textContent).toBe(
      'Built quick v1: 50 items',
    );
  });

  it('refuses a cap that is not a whole number from 1 up, and builds nothing', async () => {
    const api = renderForm();
    await fill('0');
    expect(screen.getByRole('alert').textContent).toBe(
      'Max per task is a whole number from 1 up (items per task stratum), or empty for no cap.',
    );
    expect(api.calls.map((call) => call.path)).toEqual(['datasets.list']);
  });
});
