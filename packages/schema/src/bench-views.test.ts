import { describe, expect, it } from 'vitest';
import { openingSelector, overallSelector, sharedOverallSelector } from './bench-views';
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

function cell(source: 'rule' | 'judge', metric: string, n: number) {
  return {
    sim: 'retrieval',
    task: 'overall',
    source,
    metric,
    mean: n === 0 ? null : 50,
    ciLow: null,
    ciHigh: null,
    n,
    missing: 100 - n,
  };
}

describe('openingSelector', () => {
  const scored = judge('score');

  it('opens an ended run on the content score when its judge gave no verdict at all', () => {
    const noVerdicts = [cell('rule', 'content', 100), cell('judge', 'overall', 0)];
    expect(openingSelector({ judge: scored, status: 'done' }, noVerdicts)).toEqual(CONTENT);
    expect(
      openingSelector({ judge: scored, status: 'done' }, [cell('rule', 'content', 100)]),
    ).toEqual(CONTENT);
    // One verdict is enough to open on the judge's Overall.
    expect(
      openingSelector({ judge: scored, status: 'done' }, [
        ...noVerdicts,
        cell('judge', 'overall', 1),
      ]),
    ).toEqual(JUDGE_OVERALL);
  });

  it('keeps the Overall of a running run, whose verdicts may still come, and of a run without judge', () => {
    expect(openingSelector({ judge: scored, status: 'running' }, [])).toEqual(JUDGE_OVERALL);
    expect(openingSelector({ judge: null, status: 'done' }, [])).toEqual(CONTENT);
  });
});
