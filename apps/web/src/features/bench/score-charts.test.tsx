import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { scoreSlice } from './bench.fixture';
import { countKey, seriesKey } from './chart-data';
import { CountDot, FEW_ITEMS, ScoreCharts, simColours } from './score-charts';

afterEach(cleanup);

const sims = ['replay', 'openai:http://127.0.0.1:8000/v1#m'];

describe('ScoreCharts cost axis', () => {
  it('offers no chart by tokens when no prediction used any, and says why', () => {
    render(
      <ScoreCharts
        sims={sims}
        slices={[
          scoreSlice([1, 1], { axis: 'tokens', x: 0 }),
          scoreSlice([1], { axis: 'latency', x: 2 }),
        ]}
      />,
    );
    const tokens = screen.getByRole('button', { name: 'Tokens' });
    expect(tokens).toHaveProperty('disabled', true);
    expect(tokens.getAttribute('title')).toBe(
      'No prediction of this run used tokens (replay and retrieval answer locally)',
    );
    expect(screen.getByRole('button', { name: 'Latency' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(screen.getByRole('figure', { name: 'Score by latency' })).toBeTruthy();
  });

  it('charts by tokens once an endpoint used some', () => {
    render(
      <ScoreCharts
        sims={sims}
        slices={[
          scoreSlice([1], { axis: 'tokens', x: 0 }),
          scoreSlice([0.5], { sim: sims[1] ?? '', axis: 'tokens', x: 11 }),
        ]}
      />,
    );
    const tokens = screen.getByRole('button', { name: 'Tokens' });
    expect(tokens).toHaveProperty('disabled', false);
    expect(tokens.getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('figure', { name: 'Score by tokens' })).toBeTruthy();
  });
});

describe('CountDot', () => {
  const key = seriesKey(0);
  function dot(items: number | undefined) {
    const payload =
      items === undefined ? { x: 3, [key]: 80 } : { x: 3, [key]: 80, [countKey(key)]: items };
    const { container } = render(
      <svg>
        <CountDot cx={10} cy={20} stroke="#2458b3" payload={payload} dataKey={key} />
      </svg>,
    );
    return container.querySelector('circle');
  }

  it('draws a point on few items hollow and small, on many filled and larger', () => {
    const few = dot(2);
    expect([few?.getAttribute('fill'), few?.getAttribute('data-items')]).toEqual(['none', '2']);
    const many = dot(153);
    expect(many?.getAttribute('fill')).toBe('#2458b3');
    expect(Number(many?.getAttribute('r'))).toBeGreaterThan(Number(few?.getAttribute('r')));
    expect(dot(FEW_ITEMS)?.getAttribute('fill')).toBe('#2458b3');
    cleanup();
    // No count beside the mean: no point drawn rather than one that looks measured.
    expect(dot(undefined)).toBeNull();
  });
});

describe('simColours', () => {
  it('gives a simulator the same colour in every run, and two simulators of a run two colours', () => {
    const model = 'openai:http://127.0.0.1:8000/v1#m';
    const one = simColours(['replay', 'retrieval']);
    const other = simColours(['retrieval', model, 'replay']);
    // walk 45: retrieval was orange beside replay in one run and blue in the next.
    expect(other.get('retrieval')).toBe(one.get('retrieval'));
    expect(other.get('replay')).toBe(one.get('replay'));
    expect(new Set(other.values()).size).toBe(3);
    const many = Array.from({ length: 6 }, (_, n) => `openai:http://127.0.0.1:800${n}/v1#m`);
    expect(new Set(simColours(many).values()).size).toBe(6);
  });
});
