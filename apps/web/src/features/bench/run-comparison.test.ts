import type { JudgeConfig, ScoreSelector } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { cellDelta as delta, leaderboardCell } from './bench.fixture';
import {
  absenceText,
  deltaDirection,
  deltaRows,
  deltaSignificance,
  shownDelta,
  orderRuns,
  sameMembers,
  settingDiffs,
} from './run-comparison';

/** A cell whose before and after means are these, its Δ their difference. */
function meansDelta(before: number, after: number) {
  return delta({
    before: leaderboardCell({ sim: 'retrieval', mean: before }),
    after: leaderboardCell({ sim: 'retrieval', mean: after }),
    delta: after - before,
  });
}

describe('run comparison', () => {
  it('groups one score’s deltas per simulator in run order with overall and macro first', () => {
    const rows = deltaRows(
      [
        delta({ task: 'tau2-bench/retail' }),
        delta({ sim: 'replay', task: 'overall' }),
        delta({ task: 'macro' }),
        delta({ task: 'overall', metric: 'exact-match' }),
        delta({ task: 'overall', source: 'judge' }),
        delta({ task: 'overall' }),
      ],
      { source: 'rule', metric: 'content' },
      ['replay', 'retrieval'],
    );
    expect(rows.map((row) => [row.sim, row.cells.map((cell) => cell.task)])).toEqual([
      ['replay', ['overall']],
      ['retrieval', ['overall', 'macro', 'tau2-bench/retail']],
    ]);
  });

  it('gives every simulator of either run a row, with no cells where neither has the score', () => {
    const judge: ScoreSelector = { source: 'judge', metric: 'overall' };
    const rows = deltaRows([delta({ ...judge, before: null }), delta({ sim: 'replay' })], judge, [
      'replay',
      'retrieval',
      'retrieval',
    ]);
    expect(rows.map((row) => [row.sim, row.cells.length])).toEqual([
      ['replay', 0],
      ['retrieval', 1],
    ]);
    // No cell of the score in either run: nothing to list.
    expect(deltaRows([delta({ sim: 'replay' })], judge, ['replay', 'retrieval'])).toEqual([]);
  });

  it('says whether a run lacks the simulator or only the score', () => {
    const judge: JudgeConfig = {
      spec: 'openai:http://127.0.0.1:4828/v1#judge',
      temperature: 0,
      repeats: 1,
      mode: 'score',
    };
    const judgeOverall: ScoreSelector = { source: 'judge', metric: 'overall' };
    const unjudged = { sims: ['replay', 'retrieval'], judge: null };
    expect(absenceText(unjudged, 'older', 'retrieval', judgeOverall)).toBe(
      'the older run has no judge scores (it had no judge)',
    );
    expect(absenceText(unjudged, 'newer', 'openai:http://x/v1#m', judgeOverall)).toBe(
      'not in the newer run',
    );
    expect(absenceText({ ...unjudged, judge }, 'older', 'retrieval', judgeOverall)).toBe(
      'the older run has no Judge: Overall scores',
    );
  });

  it('calls a change better or worse only when its interval excludes 0', () => {
    expect(deltaDirection({ delta: 10, significant: true })).toBe('better');
    expect(deltaDirection({ delta: -4, significant: true })).toBe('worse');
    expect(deltaDirection({ delta: -4, significant: false })).toBe('same');
    expect(deltaDirection({ delta: null, significant: false })).toBe('unknown');
  });
});

describe('which run is before, what else differs, and what is significant', () => {
  const older: Parameters<typeof settingDiffs>[0] = {
    id: 'run-a',
    createdAt: '2026-11-30T10:00:00.000Z',
    benchVersion: 1,
    sims: ['replay', 'retrieval'],
    judge: null,
    mode: { kind: 'open' },
    split: 'test',
    status: 'done',
    prompts: null,
  };
  const newer: Parameters<typeof settingDiffs>[0] = {
    ...older,
    id: 'run-b',
    createdAt: '2026-12-01T09:00:00.000Z',
    sims: ['retrieval'],
    mode: { kind: 'closed', steps: 3 },
  };

  it('puts the older run before, from whichever run the page was opened', () => {
    expect(orderRuns(newer, older).map((run) => run.id)).toEqual(['run-a', 'run-b']);
    expect(orderRuns(older, newer).map((run) => run.id)).toEqual(['run-a', 'run-b']);
  });

  it('names every setting that differs, closed loop included', () => {
    expect(settingDiffs(older, newer)).toEqual([
      { setting: 'Simulators', before: 'replay, retrieval', after: 'retrieval' },
      {
        setting: 'Mode',
        before: 'open loop (real history)',
        after: 'closed loop (own predictions for the last 3 turns)',
      },
    ]);
    expect(settingDiffs(older, { ...older, id: 'run-c' })).toEqual([]);
  });

  it('reads the simulators as a set: the order they were listed in is no difference', () => {
    const reordered = { ...older, id: 'run-e', sims: ['retrieval', 'replay'] };
    expect(settingDiffs(older, reordered)).toEqual([]);
    expect(settingDiffs(older, { ...reordered, sims: ['retrieval', 'replay', 'replay'] })).toEqual(
      [],
    );
    expect(
      settingDiffs(older, {
        ...reordered,
        sims: ['retrieval', 'openai:http://127.0.0.1:1/v1#gpt'],
      }),
    ).toEqual([
      {
        setting: 'Simulators',
        before: 'replay, retrieval',
        after: 'retrieval, openai:http://127.0.0.1:1/v1#gpt',
      },
    ]);
  });

  it('counts members, not order or repeats, when it compares lists', () => {
    expect(sameMembers(['a', 'b'], ['b', 'a'])).toBe(true);
    expect(sameMembers(['a', 'a', 'b'], ['b', 'a'])).toBe(true);
    expect(sameMembers(['a', 'b'], ['a'])).toBe(false);
    expect(sameMembers(['a', 'b'], ['a', 'c'])).toBe(false);
    expect(sameMembers([], [])).toBe(true);
  });

  it('names a different prompt folder by its hash', () => {
    const hash = 'ab'.repeat(32);
    const withFolder = {
      ...older,
      id: 'run-d',
      prompts: { hash, files: ['mcp/system_prompt.txt'] },
    };
    expect(settingDiffs(older, withFolder)).toEqual([
      { setting: 'Prompts', before: 'Terrarium prompts', after: `prompt folder ${hash}` },
    ]);
  });

  it('calls a Δ significant only when the interval of the paired difference excludes 0', () => {
    expect(deltaSignificance(delta({}))).toBe('significant');
    expect(deltaSignificance(delta({ deltaLow: -1.2, significant: false }))).toBe(
      'not significant',
    );
    expect(deltaSignificance(delta({ deltaLow: null, deltaHigh: null, significant: false }))).toBe(
      'no interval',
    );
    // One run lacks the simulator or task: said as such, not as a missing interval.
    expect(deltaSignificance(delta({ delta: null, after: null }))).toBe('only before');
    expect(deltaSignificance(delta({ delta: null, before: null }))).toBe('only after');
    // A run canceled part way covers other items: never significant, whatever the intervals.
    expect(deltaSignificance(delta({ sameItems: false, significant: false }))).toBe('other items');
  });

  it('prints the Δ of the means as printed, so the columns add up', () => {
    // 50.94 → 50.96 print as 50.9 → 51.0: +0.1, where the unrounded Δ (0.02) printed 0.0.
    expect(shownDelta(meansDelta(50.94, 50.96))).toBeCloseTo(0.1, 12);
    // 16.54 → 16.06 print as 16.5 → 16.1: −0.4, where the unrounded Δ printed −0.5.
    expect(shownDelta(meansDelta(16.54, 16.06))).toBeCloseTo(-0.4, 12);
    expect(shownDelta(delta({ after: null }))).toBeNull();
  });
});
