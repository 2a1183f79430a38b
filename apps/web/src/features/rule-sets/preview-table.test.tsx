import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PreviewTable } from './preview-table';
import { itemReward, previewResult, previewRow } from './rule-sets.fixture';

afterEach(cleanup);

const column = (id: string) => screen.getAllByTestId(id).map((cell) => cell.textContent ?? '');

describe('PreviewTable', () => {
  it('names each item by its turn and action, not its hash, and reads a breakdown entry without a value', () => {
    render(
      <PreviewTable
        result={previewResult([
          previewRow({
            itemId: '0019e0e04f9d7731',
            draft: itemReward(0.8125, {
              breakdown: [
                { id: 'content', kind: 'rule', score: 0.8125, weight: 0.5 },
                { id: 'ls-only', kind: 'rule', score: null, weight: 1, detail: 'out of scope' },
                { id: 'format', kind: 'criterion', score: null, weight: 1 },
                { id: 'invented-outcome', kind: 'criterion', score: null, weight: -0.9 },
              ],
            }),
            saved: itemReward(0.875),
            delta: -0.0625,
          }),
          // Items sent inline have no bench task or turn: their place in the list names them.
          previewRow({ itemId: '3', task: null, place: null, action: null, domain: 'tool' }),
        ])}
      />,
    );
    const rows = screen.getAllByTestId('preview-row');
    expect(column('preview-item-headline')).toEqual(['turn 3/5 ls -la /testbed', 'item 4']);
    expect(screen.getAllByTestId('preview-item-name').map((node) => node.textContent)).toEqual([
      'intercode/bash · terminal',
      'tool',
    ]);
    // The trajectory and the item's id, for whoever needs to find it elsewhere.
    expect(rows[0]?.querySelector('[title]')?.getAttribute('title')).toBe(
      'trajectory intercode-bash-fs1-7 · item 0019e0e04f9d7731',
    );
    expect(rows[1]?.querySelector('[title]')?.getAttribute('title')).toBe('item 4 of those sent');
    expect(screen.getAllByTestId('preview-breakdown')[0]?.textContent).toBe(
      'content: 81.3 (weight 0.5) · ls-only: no value (weight 1; out of scope) · ' +
        'unscored criteria: format, invented-outcome',
    );
    expect(
      [...rows].map((row) =>
        ['preview-draft', 'preview-saved', 'preview-delta'].map(
          (id) => row.querySelector(`[data-testid="${id}"]`)?.textContent,
        ),
      ),
    ).toEqual([
      ['81.3', '87.5', '−6.3'],
      ['100.0', '—', '—'],
    ]);
    expect(screen.getByTestId('preview-no-value').textContent).toMatch(/^No value: /);
  });

  it('says nothing about missing values when every entry has one', () => {
    render(<PreviewTable result={previewResult([previewRow()])} />);
    expect(screen.getByTestId('preview-breakdown').textContent).toBe('content: 100.0 (weight 1)');
    expect(screen.queryByTestId('preview-no-value')).toBeNull();
  });

  it('says when previewed items are not of the domain the rule set is written for', () => {
    const { rerender } = render(
      <PreviewTable
        result={previewResult([
          previewRow({ itemId: 'a', domain: 'tool' }),
          previewRow({ itemId: 'b', domain: 'terminal' }),
          previewRow({ itemId: 'c', domain: 'tool' }),
        ])}
      />,
    );
    expect(screen.getByTestId('preview-other-domain').textContent).toBe(
      'This rule set is written for terminal items, but 2 of the 3 previewed items are tool ' +
        'items: its scores there may not mean what it intends.',
    );
    rerender(<PreviewTable result={previewResult([previewRow({ domain: 'tool' })])} />);
    expect(screen.getByTestId('preview-other-domain').textContent).toBe(
      'This rule set is written for terminal items, but the previewed item is a tool item: its ' +
        'scores there may not mean what it intends.',
    );
    // A rule set that names no domain, or items of its own domain: nothing to say.
    rerender(
      <PreviewTable
        result={previewResult([previewRow({ domain: 'tool' })], {
          ruleSet: { name: 'any', savedVersion: null, domain: null },
        })}
      />,
    );
    expect(screen.queryByTestId('preview-other-domain')).toBeNull();
    rerender(<PreviewTable result={previewResult([previewRow()])} />);
    expect(screen.queryByTestId('preview-other-domain')).toBeNull();
  });

  it("names a draft's first problem as the editor's status line does, field and place (walk 52)", () => {
    render(
      <PreviewTable
        result={{
          ok: false,
          issues: [
            {
              field: 'rules',
              message: 'a rule set needs at least one rule or criterion',
              line: 1,
              column: 1,
            },
            {
              field: 'combine.rules',
              message: 'Too small: expected number to be >=0',
              line: 4,
              column: 10,
            },
          ],
        }}
      />,
    );
    expect(screen.getByTestId('preview-invalid').textContent).toBe(
      'The draft does not parse: rules (1:1): a rule set needs at least one rule or criterion',
    );
  });
});
