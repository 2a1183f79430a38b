import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { LabelingItem } from '@terrarium/api';
import type { LabelCriterion } from '@terrarium/labels';
import { createRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CriteriaForm, type LabelDraft } from './criteria-form';
import { labelingItem } from './labeling.fixture';

afterEach(cleanup);

const OVERALL: LabelCriterion = { id: 'overall', text: 'How good?', min: 0, max: 10, weight: 1 };
const CORRECT: LabelCriterion = {
  id: 'correct',
  text: 'Are the values right?',
  min: 1,
  max: 3,
  weight: 0.7,
  labels: { '1': 'wrong', '2': 'partly', '3': 'right' },
};

function renderForm(
  onChange: (draft: LabelDraft) => void = () => {},
  view: LabelingItem = labelingItem(),
) {
  render(
    <CriteriaForm
      criteria={[OVERALL, CORRECT]}
      draft={{ scores: {}, comment: '', flagged: false }}
      selected={0}
      reviewing={false}
      onSelect={() => {}}
      onChange={onChange}
      onSubmit={() => {}}
      commentRef={createRef()}
      view={view}
    />,
  );
}

function scale(id: string): HTMLElement {
  return screen.getByRole('group', { name: `${id} score` });
}

/** A score of the labeled item, as `labels.next` carries it outside blind queues. */
function score(source: 'rule' | 'judge', metric: string, value: number) {
  return { itemId: 'item-1', sim: 'retrieval', source, metric, value, detail: null };
}

describe('CriteriaForm', () => {
  it('shows every point of a 0–10 scale in one row of equal columns, 10 taking a click', () => {
    const onChange = vi.fn<(draft: LabelDraft) => void>();
    renderForm(onChange);
    const buttons = within(scale('overall')).getAllByRole('button');
    expect(buttons.map((button) => button.textContent)).toEqual(
      Array.from({ length: 11 }, (_, n) => String(n)),
    );
    expect(scale('overall').style.gridTemplateColumns).toBe('repeat(11, minmax(0, 1fr))');
    expect(buttons.map((button) => button.title).slice(-2)).toEqual(['key 9', 'no key: click']);
    expect(screen.getByTestId('scale-keys-overall').textContent).toBe(
      '10: no key, click its button',
    );
    fireEvent.click(within(scale('overall')).getByRole('button', { name: '10' }));
    expect(onChange).toHaveBeenCalledWith({ scores: { overall: 10 }, comment: '', flagged: false });
  });

  it('says what each point of a scale means, under the buttons and on each', () => {
    renderForm();
    expect(screen.getByTestId('scale-labels-correct').textContent).toBe(
      '1 wrong · 2 partly · 3 right',
    );
    expect(
      within(scale('correct'))
        .getAllByRole('button')
        .map((button) => [button.textContent, button.title]),
    ).toEqual([
      ['1', 'wrong · key 1'],
      ['2', 'partly · key 2'],
      ['3', 'right · key 3'],
    ]);
    expect(screen.queryByTestId('scale-labels-overall')).toBeNull();
    expect(screen.queryByTestId('scale-keys-correct')).toBeNull();
  });

  it('names the scores on record source:metric, as results, URLs and the CLI do', () => {
    renderForm(
      () => {},
      labelingItem({
        scores: [
          score('rule', 'content', 0.5),
          score('rule', 'walk-tool@v1', 0.2),
          score('judge', 'default-tool@v2/facts', 0.75),
        ],
      }),
    );
    expect(
      within(screen.getByTestId('labeling-scores'))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'rule:content: 50.0',
      'rule:walk-tool@v1: 20.0',
      'judge:default-tool@v2/facts: 75.0',
    ]);
  });
});
