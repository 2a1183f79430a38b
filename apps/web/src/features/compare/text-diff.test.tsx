import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ObservationDiff, TextDiffView } from './observation-diff';
import { diffText } from './text-diff';

afterEach(cleanup);

const real = 'total: 3 items\nstatus: ok\n';
const predicted = 'total: 4 items\nstatus: ok\nnext page: none\n';

describe('diffText', () => {
  it('pairs a changed line with its replacement and marks only the words that differ', () => {
    expect(diffText(real, predicted)).toEqual({
      ok: true,
      lines: [
        {
          change: 'removed',
          segments: [
            { text: 'total: ', change: 'equal' },
            { text: '3', change: 'removed' },
            { text: ' items', change: 'equal' },
          ],
        },
        {
          change: 'added',
          segments: [
            { text: 'total: ', change: 'equal' },
            { text: '4', change: 'added' },
            { text: ' items', change: 'equal' },
          ],
        },
        { change: 'equal', segments: [{ text: 'status: ok', change: 'equal' }] },
        { change: 'added', segments: [{ text: 'next page: none', change: 'added' }] },
      ],
    });
  });

  it('renders removed and added segments as highlighted text', () => {
    const diff = diffText(real, predicted);
    if (!diff.ok) throw new Error(diff.reason);
    const { container } = render(<TextDiffView lines={diff.lines} />);
    const texts = (selector: string) =>
      [...container.querySelectorAll(selector)].map((node) => node.textContent);
    expect(texts('.diff-removed')).toEqual(['3']);
    expect(texts('.diff-added')).toEqual(['4', 'next page: none']);
    expect(texts('.diff-line-equal')).toEqual([' status: ok']);
  });

  it('compares terminal output without its colour codes', () => {
    const ESC = '\u001b';
    const { container } = render(
      <ObservationDiff
        real={{ kind: 'terminal', content: `${ESC}[32mPASSED${ESC}[0m 3 tests`, callId: null }}
        predicted={{ kind: 'terminal', content: 'FAILED 3 tests', callId: null }}
      />,
    );
    expect(container.querySelector('.diff-removed')?.textContent).toBe('PASSED');
    expect(container.querySelector('.diff-added')?.textContent).toBe('FAILED');
    expect(container.textContent).not.toContain(ESC);
  });

  it('says so when the texts are identical', () => {
    const { container } = render(
      <ObservationDiff
        real={{ kind: 'text', content: 'same', callId: null }}
        predicted={{ kind: 'text', content: 'same', callId: null }}
      />,
    );
    expect(container.textContent).toBe('Identical text.');
  });
});
