import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { listedRun } from '../bench/bench.fixture';
import { ScoreRunForm } from './score-run-form';
import type { ScoringProgress } from './score-run-status';

afterEach(cleanup);

/** A job just started: it has reported nothing yet, so it counts 0 of 0. */
const STARTED: ScoringProgress = {
  id: 'rule-set-scoring-1',
  status: 'running',
  runId: '1',
  metric: 'walk-tool@v2',
  total: 0,
  done: 0,
  failed: 0,
  domain: null,
  outsideDomain: 0,
  error: null,
};

describe('ScoreRunForm', () => {
  it('gives the run’s prediction count while the job has counted nothing yet (walk 52)', async () => {
    const api = fakeApiClient(({ path }) => {
      if (path === 'bench.runs') {
        return [listedRun({ id: '1', status: 'done', total: 2092, done: 2092 })];
      }
      if (path === 'rulesets.versions') {
        return [
          {
            name: 'walk-tool',
            version: 2,
            author: 'rhea',
            message: 'facts only',
            createdAt: '2026-11-29T21:00:00.000Z',
          },
        ];
      }
      if (path === 'rulesets.scoreRun' || path === 'rulesets.scoreRunStatus') return STARTED;
      // Whether v2 scored the run before: not asked of this test.
      throw new Error(`unexpected call ${path}`);
    });
    renderWithApi(<ScoreRunForm name="walk-tool" />, api.client);
    const button = await screen.findByRole('button', { name: 'Score every prediction' });
    // Both selects filled: until then the form has nothing to start.
    await screen.findByRole('option', { name: 'tau2-retail v1 · replay, retrieval · run 1' });
    await screen.findByRole('option', { name: 'v2 · facts only' });
    fireEvent.click(button);
    expect((await screen.findByTestId('score-run-status')).textContent).toBe(
      'walk-tool@v2: starting on 2,092 predictions…',
    );
    expect(api.calls.find((call) => call.path === 'rulesets.scoreRun')?.input).toEqual({
      runId: '1',
      ruleSet: { name: 'walk-tool', version: 2 },
    });
  });
});
