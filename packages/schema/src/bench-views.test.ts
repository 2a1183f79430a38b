import { describe, expect, it } from 'vitest';
import { overallSelector, sharedOverallSelector } from './bench-views';
import type { JudgeConfig } from './bench';

function judge(mode: JudgeConfig['mode']): JudgeConfig {
  return { spec: 'openai:http://127.0.0.1:8000/v1#judge', temperature: 0, repeats: 1, mode };
}

const CONTENT = { source: 'rule', metric: 'content' };
const JUDGE_OVERALL = { source: 'judge', metric: 'overall' };

describe('overallSelector', () => {
  it("is the judge's overall when a judge scored the run, else the content score", () => {
    expect(overallSelector({ judge: null })).toEqual(CONTENT);
    expect(overallSelector({ judge: judge('score') })).toEqual(JUDGE_OVERALL);
    // Turing and pairwise judges give no overall score.
    expect(overallSelector({ judge: judge('turing') })).toEqual(CONTENT);
    expect(overallSelector({ judge: judge('pairwise') })).toEqual(CONTENT);
  });

  it("of runs compared, is the judge's only when each run had a scoring judge", () => {
    expect(sharedOverallSelector([{ judge: judge('score') }, { judge: judge('score') }])).toEqual(
      JUDGE_OVERALL,
    );
    expect(sharedOverallSelector([{ judge: judge('score') }, { judge: null }])).toEqual(CONTENT);
    expect(sharedOverallSelector([{ judge: judge('score') }, { judge: judge('turing') }])).toEqual(
      CONTENT,
    );
    expect(sharedOverallSelector([{ judge: judge('score') }])).toEqual(JUDGE_OVERALL);
    expect(sharedOverallSelector([])).toEqual(CONTENT);
  });
});
