import { cleanup, fireEvent, render } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { stepAfter } from './replay-keys';
import { useReplayKeyboard } from './use-replay-keyboard';

afterEach(cleanup);

function Stepper({ total }: { total: number }) {
  const [index, setIndex] = useState(0);
  const [playing, setPlaying] = useState(false);
  useReplayKeyboard((command) => {
    if (command === 'toggle-play') setPlaying((value) => !value);
    else setIndex((current) => stepAfter(command, current, total));
  });
  return (
    <div>
      <output>{`Step ${index + 1} / ${total}${playing ? ' playing' : ''}`}</output>
      <input aria-label="notes" />
    </div>
  );
}

describe('useReplayKeyboard', () => {
  it('moves through the steps with j, k, g and G and stays in bounds', () => {
    const { container } = render(<Stepper total={5} />);
    const counter = () => container.querySelector('output')?.textContent;
    fireEvent.keyDown(window, { key: 'j' });
    fireEvent.keyDown(window, { key: 'ArrowRight' });
    expect(counter()).toBe('Step 3 / 5');
    fireEvent.keyDown(window, { key: 'G' });
    fireEvent.keyDown(window, { key: 'j' });
    expect(counter()).toBe('Step 5 / 5');
    fireEvent.keyDown(window, { key: 'k' });
    expect(counter()).toBe('Step 4 / 5');
    fireEvent.keyDown(window, { key: 'g' });
    fireEvent.keyDown(window, { key: 'ArrowUp' });
    expect(counter()).toBe('Step 1 / 5');
    fireEvent.keyDown(window, { key: ' ' });
    expect(counter()).toBe('Step 1 / 5 playing');
  });

  it('ignores keys typed into an input', () => {
    const { container } = render(<Stepper total={5} />);
    const input = container.querySelector('input');
    if (!input) throw new Error('input missing');
    fireEvent.keyDown(input, { key: 'j' });
    fireEvent.keyDown(input, { key: 'G' });
    expect(container.querySelector('output')?.textContent).toBe('Step 1 / 5');
  });
});
