import { describe, expect, it } from 'vitest';
import { evaluatedColumns, formatInterval, versusRetrieval } from './evaluation-table';

const figures = (mean: number) => ({
  transitions: 10,
  content: { mean, low: mean - 0.1, high: mean + 0.1 },
  tokenF1: { mean, low: mean - 0.1, high: mean + 0.1 },
});

const at = (mean: number, low: number, high: number) => ({ mean, low, high });

describe('the evaluation table', () => {
  it('shows the model, retrieval and the ablation first, then other simulators by name', () => {
    expect(
      evaluatedColumns({
        'tau2/retail': { retrieval: figures(0.5), zeta: figures(0.1), model: figures(0.6) },
        'tau2/airline': { 'model-no-context': figures(0.2), alpha: figures(0.3) },
      }).map((column) => column.key),
    ).toEqual(['model', 'retrieval', 'model-no-context', 'alpha', 'zeta']);
  });

  it('calls the model above or below retrieval only when the intervals separate', () => {
    expect(versusRetrieval(at(0.8, 0.71, 0.9), at(0.6, 0.5, 0.7))).toBe('above');
    expect(versusRetrieval(at(0.4, 0.3, 0.49), at(0.6, 0.5, 0.7))).toBe('below');
    expect(versusRetrieval(at(0.65, 0.55, 0.75), at(0.6, 0.5, 0.7))).toBe('intervals overlap');
    expect(versusRetrieval(undefined, at(0.6, 0.5, 0.7))).toBe(null);
  });

  it('prints a mean with its interval on the pages’ 0-100 scale, one decimal', () => {
    expect(formatInterval({ mean: 0.5, low: 0.41234, high: 0.6 })).toBe('50.0 [41.2, 60.0]');
  });
});
