import type { SimulationResult } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { simulatedStep } from './simulated-step.fixture';
import { doneText } from './run-status';
import { alignSteps, scoredPredictions, summarizeSimulation, worstSteps } from './summary';

const retrieval: SimulationResult = {
  trajectory: 't1',
  sim: 'retrieval',
  steps: [
    simulatedStep({
      step: 1,
      scores: { 'exact-match': 1, 'token-f1': 1, 'json-structure': 1, content: 1 },
      provenance: { backend: 'retrieval', cache: 'hit', model: null },
      latencyMs: 4,
      usage: { inputTokens: 10, outputTokens: 5 },
    }),
    simulatedStep({
      step: 3,
      scores: { 'exact-match': 0, 'token-f1': 0.5, 'json-structure': null, content: 0.25 },
      provenance: { backend: 'retrieval', cache: 'miss', model: null },
      latencyMs: 8,
      usage: { inputTokens: 20, outputTokens: 7 },
    }),
    simulatedStep({
      step: 5,
      scores: { 'exact-match': 0, 'token-f1': 0.25, 'json-structure': null, content: 0.5 },
      provenance: { backend: 'retrieval', cache: 'miss', model: null },
      latencyMs: 12,
      usage: { inputTokens: 30, outputTokens: 9 },
      error: 'timeout',
    }),
  ],
};

const replay: SimulationResult = {
  trajectory: 't1',
  sim: 'replay',
  steps: [
    simulatedStep({ step: 3, scores: { content: 0.1 } }),
    simulatedStep({ step: 7, scores: { content: null } }),
  ],
};

describe('summarizeSimulation', () => {
  it('averages each score over the simulated steps, leaving the failed prediction out', () => {
    // Step 5 failed (timeout): its placeholder scores are not averaged in and it is not simulated;
    // its tokens were still spent.
    expect(summarizeSimulation(retrieval)).toEqual({
      sim: 'retrieval',
      steps: 3,
      simulated: 2,
      errors: 1,
      meanScores: {
        content: 0.625,
        'exact-match': 0.5,
        'json-structure': 1,
        'token-f1': 0.75,
      },
      hitRate: 0.5,
      meanLatencyMs: 6,
      inputTokens: 60,
      outputTokens: 21,
    });
  });

  it('scores nothing and simulates nothing when every prediction failed (endpoint unreachable)', () => {
    const down: SimulationResult = {
      trajectory: 't1',
      sim: 'openai:http://127.0.0.1:9/v1#m',
      steps: [1, 3, 5].map((step) =>
        simulatedStep({ step, scores: { content: 1, 'exact-match': 1 }, error: 'fetch failed' }),
      ),
    };
    const summary = summarizeSimulation(down);
    expect([summary.steps, summary.simulated, summary.errors, summary.meanScores]).toEqual([
      3,
      0,
      3,
      {},
    ]);
    const rows = alignSteps([down]);
    expect([worstSteps(rows, 10), scoredPredictions(rows)]).toEqual([[], 0]);
    expect(doneText(down)).toEqual({
      text: 'no transition simulated: all 3 predictions failed (fetch failed)',
      failed: true,
    });
    expect(doneText(retrieval).text).toBe('2 of 3 transitions simulated; 1 failed (timeout)');
    expect(doneText(replay)).toEqual({ text: '2 transitions simulated', failed: false });
    // Stopped by its user: how far it got, and whether any of what it did failed.
    expect(doneText(replay, { planned: 8 })).toEqual({
      text: 'stopped after 2 of 8 transitions',
      failed: false,
    });
    expect(doneText(retrieval, { planned: 8 })).toEqual({
      text: 'stopped after 3 of 8 transitions, 1 of them failed (timeout)',
      failed: true,
    });
  });

  it('puts content first, then the rule metrics in their canonical order', () => {
    expect(Object.keys(summarizeSimulation(retrieval).meanScores)).toEqual([
      'content',
      'exact-match',
      'json-structure',
      'token-f1',
    ]);
  });

  it('reports no hit rate when no step has a cache outcome, and null means for unscored metrics', () => {
    const summary = summarizeSimulation(replay);
    expect(summary.hitRate).toBeNull();
    expect(summary.meanScores).toEqual({ content: 0.1 });
    expect(
      summarizeSimulation({ ...replay, steps: [replay.steps[1] ?? simulatedStep()] }).meanScores,
    ).toEqual({
      content: null,
    });
  });
});

describe('alignSteps and worstSteps', () => {
  it('aligns simulators by step and lists content scores below 1, lowest first', () => {
    const rows = alignSteps([retrieval, replay]);
    expect(rows.map((row) => [row.step, [...row.bySim.keys()]])).toEqual([
      [1, ['retrieval']],
      [3, ['retrieval', 'replay']],
      [5, ['retrieval']],
      [7, ['replay']],
    ]);
    // Step 5 of retrieval failed: it has no prediction to rank.
    expect(worstSteps(rows, 10)).toEqual([
      { step: 3, sim: 'replay', content: 0.1 },
      { step: 3, sim: 'retrieval', content: 0.25 },
    ]);
    expect(scoredPredictions(rows)).toBe(3);
    expect(worstSteps(rows, 1)).toEqual([{ step: 3, sim: 'replay', content: 0.1 }]);
  });
});
