import { describe, expect, it } from 'vitest';
import { scoreRunStatusText, type ScoringProgress } from './score-run-status';

function progress(overrides: Partial<ScoringProgress> = {}): ScoringProgress {
  return {
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
    ...overrides,
  };
}

describe('scoreRunStatusText', () => {
  it('says the job is starting, on the run’s predictions, until it first counts (walk 52)', () => {
    expect(scoreRunStatusText(progress(), 'walk-tool', 2092)).toBe(
      'walk-tool@v2: starting on 2,092 predictions…',
    );
    expect(scoreRunStatusText(progress(), 'walk-tool', 1)).toBe(
      'walk-tool@v2: starting on 1 prediction…',
    );
    // The runs list not read yet: no count to give, and still no 0/0.
    expect(scoreRunStatusText(progress(), 'walk-tool', null)).toBe('walk-tool@v2: starting…');
  });

  it('counts the predictions gone through once the job reports, and how it ended', () => {
    expect(scoreRunStatusText(progress({ total: 2092, done: 500 }), 'walk-tool', 2092)).toBe(
      'walk-tool@v2: scoring 500/2092',
    );
    expect(
      scoreRunStatusText(
        progress({ status: 'done', total: 2092, done: 2092, failed: 3 }),
        'walk-tool',
        2092,
      ),
    ).toBe('walk-tool@v2: done 2092/2092 · 3 failed predictions left unscored');
    // A run with no predictions at all ends at once, and says 0/0 as it is.
    expect(scoreRunStatusText(progress({ status: 'done' }), 'walk-tool', 0)).toBe(
      'walk-tool@v2: done 0/0',
    );
  });

  it('names items outside the rule set’s domain, and the error of a failed job', () => {
    expect(
      scoreRunStatusText(
        progress({
          status: 'failed',
          metric: 'my-terminal@v1',
          total: 40,
          done: 20,
          domain: 'terminal',
          outsideDomain: 20,
          error: 'no bench run 1',
        }),
        'my-terminal',
        40,
      ),
    ).toBe(
      'my-terminal@v1: failed 20/40 · 20 scored on items outside terminal, the domain my-terminal ' +
        "is written for (a rule set's domain scopes nothing; a rule's scope.domains leaves items " +
        'out) · no bench run 1',
    );
  });
});
