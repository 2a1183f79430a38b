import { describe, expect, it } from 'vitest';
import { judgeVerdictText, rerunUsageText } from './item-rerun';

describe('rerunUsageText', () => {
  it('says what a re-run’s simulator and judge calls cost, each as the run page words it', () => {
    expect(
      rerunUsageText({
        usage: { inputTokens: 1_840, outputTokens: 36, costUsd: 0.0021 },
        judgeUsage: { inputTokens: 2_113, outputTokens: 41, costUsd: null },
      }),
    ).toBe(
      'simulator 1,840 in / 36 out tokens · $0.0021 · judge 2,113 in / 41 out tokens · cost not priced',
    );
    expect(
      rerunUsageText({
        usage: { inputTokens: 0, outputTokens: 0, costUsd: null },
        judgeUsage: null,
      }),
    ).toBe('simulator no token usage reported');
  });
});

describe('judgeVerdictText', () => {
  it('gives the re-run’s judge verdict beside the run’s, and says when there was none', () => {
    expect(judgeVerdictText(60, 55.5)).toBe('judge overall 60.0 (run: 55.5)');
    expect(judgeVerdictText(null, 55.5)).toBe(
      'judge overall: no verdict this time (the request failed or its answer could not be read) (run: 55.5)',
    );
  });
});
