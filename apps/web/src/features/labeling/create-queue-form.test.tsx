import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { BenchRun } from '@terrarium/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { benchRun } from '../bench/bench.fixture';
import { CreateQueueForm } from './create-queue-form';

afterEach(cleanup);
beforeEach(() => window.history.replaceState(null, '', '/labeling'));

/** Two accounts that can label, as `terrarium users add` makes them. */
const TWO_LABELERS = ['ada', 'bob'].map((name, at) => ({
  id: String(at + 1),
  name,
  role: 'labeler',
  createdAt: '2026-12-04T05:00:00.000Z',
}));

/** What `rulesets.list` answers on a fresh install with one saved version of default-tool. */
const RULE_SETS = [
  {
    name: 'default-tool',
    latestVersion: 1,
    versions: 1,
    author: 'owner',
    message: 'baseline',
    updatedAt: '2026-12-05T10:00:00.000Z',
    builtin: true,
  },
];

/** default-tool's latest version as `rulesets.get` gives it: written for tool items. */
const DEFAULT_TOOL = {
  name: 'default-tool',
  version: 1,
  ruleSet: { name: 'default-tool', domain: 'tool', criteria: [] },
};

function renderForm(
  runs: BenchRun[],
  users: unknown[] = TWO_LABELERS,
  labelers: string[] | null = null,
  warningsFor: (input: unknown) => string[] = () => [],
) {
  // The API at the network edge: `bench.runs` answers with `runs`, `auth.users.list` with `users`,
  // `rulesets.get` with default-tool, `labels.createQueue` with queue 7 of 20 items (for
  // `labelers`, or for everyone) and the warnings `warningsFor` gives its input.
  const api = fakeApiClient(({ path, input }) =>
    path === 'bench.runs'
      ? runs
      : path === 'auth.users.list'
        ? users
        : path === 'rulesets.list'
          ? RULE_SETS
          : path === 'rulesets.get'
            ? DEFAULT_TOOL
            : {
                id: '7',
                name: 'demo v1 · run 1 · retrieval',
                items: 20,
                labelers,
                warnings: warningsFor(input),
              },
  );
  renderWithApi(<CreateQueueForm />, api.client);
  return api;
}

const DEMO_RUN = benchRun({
  id: '1',
  bench: 'demo',
  benchVersion: 1,
  sims: ['replay', 'retrieval'],
  status: 'done',
});

async function simulatorPicker(): Promise<HTMLSelectElement> {
  const select = await screen.findByLabelText(/^Simulator/);
  if (!(select instanceof HTMLSelectElement)) throw new Error('the simulator picker is no select');
  return select;
}

async function createdQueueInput(api: ReturnType<typeof fakeApiClient>): Promise<unknown> {
  fireEvent.click(screen.getByRole('button', { name: 'Create queue' }));
  await waitFor(() => expect(api.calls.map((call) => call.path)).toContain('labels.createQueue'));
  return api.calls.find((call) => call.path === 'labels.createQueue')?.input;
}

/** What the form sends for DEMO_RUN with default-tool's criteria, by its selection. */
function toolQueueInput(selection: unknown) {
  return {
    name: 'demo v1 · run 1 · retrieval',
    runId: '1',
    sim: 'retrieval',
    selection,
    labelsPerItem: 2,
    blind: true,
    ruleSet: { name: 'default-tool' },
  };
}

describe('CreateQueueForm', () => {
  it('lists the run’s simulators and grades the first that is not an oracle by default', async () => {
    const api = renderForm([DEMO_RUN]);
    const picker = await simulatorPicker();
    expect([...picker.options].map((option) => [option.value, option.textContent])).toEqual([
      ['replay', 'replay (oracle)'],
      ['retrieval', 'retrieval'],
    ]);
    expect(picker.value).toBe('retrieval');
    expect(screen.queryByTestId('oracle-sim-warning')).toBeNull();

    expect(await createdQueueInput(api)).toEqual({
      name: 'demo v1 · run 1 · retrieval',
      runId: '1',
      sim: 'retrieval',
      selection: { kind: 'all' },
      labelsPerItem: 2,
      blind: true,
    });
  });

  it('stays on the list after creating a queue for everyone, leasing nothing, and says so', async () => {
    const api = renderForm([DEMO_RUN]);
    await simulatorPicker();
    await createdQueueInput(api);
    const created = await screen.findByTestId('queue-created');
    expect(created.textContent).toBe(
      'Created demo v1 · run 1 · retrieval with 20 items; none is taken yet. Labelers take items ' +
        'with Grade in the list below; Grade starts your own labeling.',
    );
    expect(within(created).getByRole('link', { name: 'Grade' }).getAttribute('href')).toBe(
      '/labeling/7',
    );
    expect(window.location.pathname).toBe('/labeling');
    // Only the creation went to the server: nothing took a lease on an item.
    expect(api.calls.map((call) => call.path).filter((path) => path.startsWith('labels.'))).toEqual(
      ['labels.createQueue'],
    );
  });

  it('stays on the list when the new queue is for other labelers', async () => {
    window.history.replaceState(null, '', '/labeling');
    const api = renderForm([DEMO_RUN], TWO_LABELERS, ['bo']);
    await simulatorPicker();
    await createdQueueInput(api);
    // The button is enabled again once the creation has settled, navigation included.
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Create queue' })).toHaveProperty(
        'disabled',
        false,
      ),
    );
    expect(window.location.pathname).toBe('/labeling');
  });

  it('warns that the oracle’s predictions are the real observations when it is picked', async () => {
    const api = renderForm([DEMO_RUN]);
    fireEvent.change(await simulatorPicker(), { target: { value: 'replay' } });
    expect(screen.getByTestId('oracle-sim-warning').textContent).toBe(
      'replay is an oracle: its predictions are the real observations, so every item would show Real = Simulated and labelers would grade a copy of the ground truth. Pick another simulator to grade a model.',
    );
    expect(await createdQueueInput(api)).toMatchObject({ sim: 'replay' });
  });

  it('falls back to the oracle when the run has nothing else, and says so', async () => {
    renderForm([benchRun({ id: '2', sims: ['replay'], status: 'done' })]);
    expect((await simulatorPicker()).value).toBe('replay');
    expect(screen.getByTestId('oracle-sim-warning').textContent).toBe(
      'replay is an oracle: its predictions are the real observations, so every item would show Real = Simulated and labelers would grade a copy of the ground truth. This run has no other simulator: run the bench with a model to grade one.',
    );
  });

  it('asks one label per item where only the owner can label, and warns when more are asked', async () => {
    const api = renderForm([DEMO_RUN], []);
    await simulatorPicker();
    const perItem = screen.getByLabelText(/^Labelers per item/);
    await waitFor(() => expect(perItem).toHaveProperty('value', '1'));
    expect(screen.queryByTestId('per-item-warning')).toBeNull();
    fireEvent.change(perItem, { target: { value: '2' } });
    expect(screen.getByTestId('per-item-warning').textContent).toBe(
      'Each item needs 2 labels from different people, and only one account can label here: add ' +
        'labelers (Accounts, below) or items will wait for labels nobody can give.',
    );
    expect(await createdQueueInput(api)).toMatchObject({ labelsPerItem: 2 });
  });

  it('offers items by rule-vs-judge disagreement only for a run with a judge', async () => {
    renderForm([DEMO_RUN]);
    await simulatorPicker();
    const option = screen.getByRole('option', { name: /^rule vs judge disagree most/ });
    expect(option).toHaveProperty('disabled', true);
    expect(option.textContent).toBe('rule vs judge disagree most (needs a run with a judge)');
  });

  it('takes its criteria from a rule set when one is picked, else the judge’s dimensions', async () => {
    const api = renderForm([DEMO_RUN]);
    const criteria = await screen.findByLabelText(/^Criteria/);
    await within(criteria).findByRole('option', { name: 'rule set default-tool v1' });
    fireEvent.change(criteria, { target: { value: 'default-tool' } });
    expect(await createdQueueInput(api)).toMatchObject({ ruleSet: { name: 'default-tool' } });
  });

  it('takes only the items a rule set is written for, unless unticked, and warns then', async () => {
    const warning =
      'default-tool is written for tool items, but 2 of the 20 queued items are terminal items: its criteria may not mean there what they intend.';
    // The server's warning when the queue may hold other items than tool ones.
    const api = renderForm([DEMO_RUN], TWO_LABELERS, null, (input) =>
      JSON.stringify(input).includes('"domain":"tool"') ? [] : [warning],
    );
    const criteria = await screen.findByLabelText(/^Criteria/);
    await within(criteria).findByRole('option', { name: 'rule set default-tool v1' });
    fireEvent.change(criteria, { target: { value: 'default-tool' } });
    const only = await screen.findByRole('checkbox', { name: 'Only tool items' });
    expect(only).toHaveProperty('checked', true);
    expect(screen.queryByTestId('queue-domain-warning')).toBeNull();
    fireEvent.change(screen.getByLabelText(/^Items/), { target: { value: 'random' } });
    expect(await createdQueueInput(api)).toEqual(
      toolQueueInput({ kind: 'random', count: 20, seed: 1, domain: 'tool' }),
    );
    expect(screen.queryByTestId('queue-created-warning')).toBeNull();

    // Unticked, the sample may take other items: the form says so before, the server after.
    fireEvent.click(only);
    expect(screen.getByTestId('queue-domain-warning').textContent).toBe(
      "default-tool's criteria are written for tool items; unticked, the queue may also take the run's other items, where they may not mean what they intend. Once made, the queue says how many it took.",
    );
    fireEvent.click(screen.getByRole('button', { name: 'Create queue' }));
    await waitFor(() =>
      expect(api.calls.filter((call) => call.path === 'labels.createQueue').length).toBe(2),
    );
    expect(api.calls.filter((call) => call.path === 'labels.createQueue')[1]?.input).toEqual(
      toolQueueInput({ kind: 'random', count: 20, seed: 1 }),
    );
    expect((await screen.findByTestId('queue-created-warning')).textContent).toBe(warning);
  });
});
