import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { defaultRuleSet, ruleSetYaml } from '@terrarium/rubrics';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { benchRun } from '../bench/bench.fixture';
import { PreviewPanel } from './preview-panel';
import { itemReward, previewResult, previewRow } from './rule-sets.fixture';
import { SaveRuleSetForm, type SavedRuleSet } from './save-rule-set-form';

afterEach(cleanup);

const DOCUMENT = ruleSetYaml({ ...defaultRuleSet('terminal'), name: 'my-terminal' });
/** The demo's run: replay (the oracle) first, as in "demo v1 · replay, retrieval · run 1". */
const RUN = benchRun({ id: '1', bench: 'demo', status: 'done', sims: ['replay', 'retrieval'] });

/**
 * The server as far as these components see it: replay's predictions are the real observations
 * (1 each), retrieval's score 0.5 under the draft and 0.25 under a saved version once one exists.
 */
function fakeServer() {
  let savedVersion: number | null = null;
  const answer = ({ path, input }: ApiCall): unknown => {
    if (path === 'bench.runs') return [RUN];
    if (path === 'rulesets.save') {
      savedVersion = (savedVersion ?? 0) + 1;
      const saved: SavedRuleSet = {
        name: 'my-terminal',
        version: savedVersion,
        document: DOCUMENT,
        ruleSet: { ...defaultRuleSet('terminal'), name: 'my-terminal' },
        author: 'ada',
        message: 'halve content weight',
        createdAt: '2026-12-03T18:00:00.000Z',
      };
      return saved;
    }
    if (path === 'rulesets.preview') {
      const sim = JSON.stringify(input).includes('"sim":"replay"') ? 'replay' : 'retrieval';
      const draft = sim === 'replay' ? 1 : 0.5;
      const saved = savedVersion === null ? null : sim === 'replay' ? 1 : 0.25;
      return previewResult(
        ['000bdf3628a1', '0019e0e04f9d'].map((itemId) =>
          previewRow({
            itemId,
            draft: itemReward(draft),
            saved: saved === null ? null : itemReward(saved),
            delta: saved === null ? null : draft - saved,
          }),
        ),
        { sim, ruleSet: { name: 'my-terminal', savedVersion, domain: 'terminal' } },
      );
    }
    throw new Error(`unexpected call ${path}`);
  };
  return fakeApiClient(answer);
}

const column = (id: string) => screen.getAllByTestId(id).map((cell) => cell.textContent ?? '');

function previewSims(calls: readonly ApiCall[]): unknown[] {
  return calls
    .filter((call) => call.path === 'rulesets.preview')
    .map((call) => {
      const input: unknown = call.input;
      if (typeof input !== 'object' || input === null || !('source' in input)) return null;
      const source: unknown = input.source;
      return typeof source === 'object' && source !== null && 'sim' in source ? source.sim : null;
    });
}

describe('PreviewPanel', () => {
  it("scores the run's first simulator that is not an oracle, and says so when the oracle is picked", async () => {
    const api = fakeServer();
    renderWithApi(<PreviewPanel document={DOCUMENT} />, api.client);
    await waitFor(() => expect(column('preview-draft')).toEqual(['50.0', '50.0']));
    const picker = screen.getByRole('combobox', { name: 'Preview simulator' });
    expect(
      [...picker.querySelectorAll('option')].map((option) => [option.value, option.textContent]),
    ).toEqual([
      ['replay', 'replay (oracle)'],
      ['retrieval', 'retrieval'],
    ]);
    expect(picker).toHaveProperty('value', 'retrieval');
    expect(screen.queryByTestId('preview-oracle-note')).toBeNull();

    fireEvent.change(picker, { target: { value: 'replay' } });
    // Until the new preview arrives, the last table stays and the panel says it is being redone.
    expect(screen.getByTestId('preview-updating').textContent).toBe(
      'Scoring the draft again… the table shows the last preview until then.',
    );
    expect(column('preview-draft')).toEqual(['50.0', '50.0']);
    await waitFor(() => expect(column('preview-draft')).toEqual(['100.0', '100.0']));
    expect(screen.queryByTestId('preview-updating')).toBeNull();
    expect(screen.getByTestId('preview-oracle-note').textContent).toBe(
      'replay is an oracle: it answers with the recorded observation itself, so every rule that ' +
        'compares with the real output scores 100 by construction. Pick another simulator to see ' +
        'what the draft changes.',
    );
    expect(previewSims(api.calls)).toEqual(['retrieval', 'replay']);
  });

  it('scores the Saved column against a version as soon as it is saved', async () => {
    const api = fakeServer();
    renderWithApi(
      <>
        <SaveRuleSetForm
          document={DOCUMENT}
          valid
          label="Save as my-terminal v1"
          onSaved={() => undefined}
        />
        <PreviewPanel document={DOCUMENT} />
      </>,
      api.client,
    );
    await waitFor(() => expect(column('preview-saved')).toEqual(['—', '—']));

    fireEvent.change(screen.getByRole('textbox', { name: 'Version message' }), {
      target: { value: 'halve content weight' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save as my-terminal v1' }));
    expect((await screen.findByTestId('saved-version')).textContent).toBe('Saved my-terminal v1');
    await waitFor(() => expect(column('preview-saved')).toEqual(['25.0', '25.0']));
    expect(column('preview-delta')).toEqual(['+25.0', '+25.0']);
  });
});
