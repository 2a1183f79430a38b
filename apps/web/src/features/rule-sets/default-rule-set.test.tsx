import { cleanup, screen } from '@testing-library/react';
import type { BenchRun } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { benchRun } from '../bench/bench.fixture';
import { benchItem } from '../labeling/labeling.fixture';
import {
  DOMAIN_SAMPLE,
  defaultRuleSetName,
  mainDomain,
  usePreviewRunDomain,
} from './default-rule-set';

afterEach(cleanup);

const NAMES = ['default-browser', 'default-terminal', 'default-tool', 'my-rules'];

/** A mixed bench's first items by id: a SWE-agent item (the fixture's own), then two tool ones. */
const ITEMS = [
  benchItem(),
  benchItem({ domain: 'tool', task: 'tau2-bench/retail' }),
  benchItem({ domain: 'tool', task: 'tau2-bench/airline' }),
];

function Probe() {
  const { settled, domain } = usePreviewRunDomain();
  return (
    <p data-testid="probe">
      {settled ? `settled ${domain ?? 'none'}` : 'pending'} →{' '}
      {settled ? defaultRuleSetName(NAMES, domain) : '—'}
    </p>
  );
}

function renderProbe(runs: BenchRun[]) {
  const api = fakeApiClient(({ path }: ApiCall) => {
    if (path === 'bench.runs') return runs;
    if (path === 'bench.items') return { total: ITEMS.length, rows: ITEMS };
    throw new Error(`unexpected call ${path}`);
  });
  renderWithApi(<Probe />, api.client);
  return api.calls;
}

describe('the rule set the page opens on', () => {
  it('is the default of the preview run’s main domain, read from a sample of its items', async () => {
    const calls = renderProbe([
      benchRun({ id: '2', bench: 'demo', status: 'running' }),
      benchRun({ id: '1', bench: 'demo', benchVersion: 3, status: 'done' }),
    ]);
    expect((await screen.findByText(/^settled/)).textContent).toBe('settled tool → default-tool');
    expect(calls.find((call) => call.path === 'bench.items')?.input).toEqual({
      name: 'demo',
      version: 3,
      split: 'test',
      offset: 0,
      limit: DOMAIN_SAMPLE,
      order: 'id',
    });
  });

  it('is the first name when no run has finished', async () => {
    renderProbe([benchRun({ id: '2', status: 'running' })]);
    expect((await screen.findByText(/^settled/)).textContent).toBe(
      'settled none → default-browser',
    );
  });
});

describe('mainDomain', () => {
  it('is the domain most items have, the first seen among equals', () => {
    expect(mainDomain([])).toBeNull();
    expect(mainDomain([{ domain: 'terminal' }, { domain: 'tool' }, { domain: 'tool' }])).toBe(
      'tool',
    );
    expect(mainDomain([{ domain: 'terminal' }, { domain: 'tool' }])).toBe('terminal');
  });
});
