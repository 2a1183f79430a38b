import type { QueueAgreement } from '@terrarium/api';
import { AGREEMENT_BOOTSTRAP, agreementReport } from '@terrarium/labels';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { AgreementPage } from './agreement-page';

afterEach(cleanup);

const REFUSAL =
  'labeler: no account named zed (lines 2, 3); nothing was imported. Add the account (Accounts on the Labeling page, or terrarium users add) or correct the name.';

/** The agreement page over a queue with no labels yet; `imports` answers each import in turn. */
function renderPage(imports: ((call: ApiCall) => unknown)[]) {
  const api = fakeApiClient((call) => {
    if (call.path === 'labels.importJsonl') {
      const next = imports.shift();
      if (next === undefined) throw new Error('no import expected');
      return next(call);
    }
    if (call.path === 'labels.agreement') throw new Error('no labels yet');
    return call.path === 'labels.queue' ? { id: '4', name: 'airline' } : [];
  });
  renderWithApi(<AgreementPage queueId="4" />, api.client);
  return api;
}

function chooseFile(text: string) {
  fireEvent.change(screen.getByLabelText('Import JSONL'), {
    target: { files: [new File([text], 'labels.jsonl')] },
  });
}

describe('AgreementPage import', () => {
  it('shows why a file was refused, then what a later import did, by new, replaced and unchanged', async () => {
    const api = renderPage([
      () => {
        throw new Error(REFUSAL);
      },
      () => ({
        imported: 0,
        added: 0,
        replaced: 0,
        unchanged: 9,
        adjudicated: 0,
        adjudicationsUnchanged: 0,
        unknownItems: [],
        errors: [],
      }),
    ]);
    chooseFile('{"item":"a","labeler":"zed","criterion":"format","value":2}\n');
    expect((await screen.findByTestId('import-error')).textContent).toBe(REFUSAL);
    expect(screen.queryByTestId('import-status')).toBeNull();

    chooseFile('{"item":"a","labeler":"ana","criterion":"format","value":2}\n');
    expect((await screen.findByTestId('import-status')).textContent).toBe(
      'Read 9 labels: 0 new, 0 replaced, 9 unchanged',
    );
    expect(screen.queryByTestId('import-error')).toBeNull();
    expect(
      api.calls.filter((call) => call.path === 'labels.importJsonl').map((call) => call.input),
    ).toEqual([
      {
        queueId: '4',
        text: '{"item":"a","labeler":"zed","criterion":"format","value":2}\n',
      },
      {
        queueId: '4',
        text: '{"item":"a","labeler":"ana","criterion":"format","value":2}\n',
      },
    ]);
  });
});

/** The agreement page over a queue whose agreement is computed from these ratings. */
function renderAgreement(
  ratings: Parameters<typeof agreementReport>[0],
  options: Parameters<typeof agreementReport>[1] = {},
) {
  const agreement: QueueAgreement = {
    queueId: '4',
    labels: ratings.length,
    criteria: ['format', 'facts'],
    labelers: agreementReport(ratings, options),
    byDomain: {},
    humanVsJudge: {},
    humanVsRules: {},
  };
  const api = fakeApiClient((call) => {
    if (call.path === 'labels.agreement') return agreement;
    return call.path === 'labels.queue' ? { id: '4', name: 'airline' } : [];
  });
  renderWithApi(<AgreementPage queueId="4" />, api.client);
}

describe('AgreementPage α', () => {
  it('says why a criterion has no α when every label of it is the same point', async () => {
    renderAgreement(
      ['a', 'b'].flatMap((item, i) => [
        { item, labeler: 'ana', criterion: 'format', value: 5 },
        { item, labeler: 'bo', criterion: 'format', value: 5 },
        { item, labeler: 'ana', criterion: 'facts', value: i + 1 },
        { item, labeler: 'bo', criterion: 'facts', value: i + 1 },
      ]),
    );
    expect((await screen.findByTestId('alpha-format')).textContent).toBe(
      'formatall labels identical: α undefined (no variance)',
    );
    expect(screen.getByTestId('alpha-facts').textContent).toBe('facts1.00[—, —]');
  });

  it('says so when pooling the criteria puts α above every criterion’s own', async () => {
    // Each criterion alone: the two labelers disagree within it. Pooled: both put consistency
    // high and invented outcomes low, which reads as agreement.
    const consistency = { ana: [5, 4, 5], bo: [4, 5, 4] };
    const invented = { ana: [0, 1, 0], bo: [1, 0, 1] };
    const labelers: ('ana' | 'bo')[] = ['ana', 'bo'];
    renderAgreement(
      ['a', 'b', 'c'].flatMap((item, i) =>
        labelers.flatMap((labeler) => [
          { item, labeler, criterion: 'consistency', value: consistency[labeler][i] ?? 0 },
          { item, labeler, criterion: 'invented', value: invented[labeler][i] ?? 0 },
        ]),
      ),
    );
    expect((await screen.findByTestId('alpha-range')).textContent).toMatch(/^-/);
    expect(screen.getByTestId('pooled-caveat').textContent).toBe(
      ' (above every criterion’s own: pooling counts agreeing on which criteria score high, so read the criteria)',
    );
  });

  it('says there is nothing to measure yet on a queue with no labels', async () => {
    renderAgreement([]);
    expect((await screen.findByTestId('few-items')).textContent).toBe(
      'Nothing to measure yet: no item has a label. Agreement appears here once labelers have graded items (Grade, above), or labels are imported.',
    );
    expect(screen.getByTestId('alpha-ordinal').textContent).toBe(
      'no item has two labels: α undefined (nothing to compare)',
    );
  });

  it('says how its intervals were drawn, as the CLI draws them on the export', async () => {
    renderAgreement(
      ['a', 'b', 'c'].flatMap((item, i) => [
        { item, labeler: 'ana', criterion: 'facts', value: i + 1 },
        { item, labeler: 'bo', criterion: 'facts', value: i === 2 ? 2 : i + 1 },
      ]),
      { bootstrap: AGREEMENT_BOOTSTRAP },
    );
    const note = await screen.findByTestId('alpha-resampling');
    expect(note.textContent).toBe('(95% bootstrap, 1,000 resamples of the items)');
    expect(note.getAttribute('title')).toBe(
      "pnpm terrarium labels agreement FILE --bootstrap on this queue's export (Export JSONL) gives the same intervals.",
    );
  });
});
