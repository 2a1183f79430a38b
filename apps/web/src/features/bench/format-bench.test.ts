import { describe, expect, it } from 'vitest';
import { benchRun } from './bench.fixture';
import {
  formatDeltaInterval,
  formatHalfWidth,
  modeLabel,
  progressShare,
  runCostText,
  samplingLabel,
} from './format-bench';
import { newerRun } from './run-progress';

describe('bench formatting', () => {
  it('prints intervals as half-widths', () => {
    expect(formatHalfWidth({ ciLow: 28.1, ciHigh: 35.3 })).toBe('±3.6');
    expect(formatHalfWidth({ ciLow: null, ciHigh: null })).toBeNull();
  });

  it('prints a difference’s interval with the decimals that keep its bounds’ signs', () => {
    // One decimal read [−0.3, 0.0] for both: the first excludes 0 (significant), the second not.
    expect(formatDeltaInterval(-0.337, -0.0152)).toBe('[−0.34, −0.02]');
    expect(formatDeltaInterval(-0.264, 0.0354)).toBe('[−0.26, +0.04]');
    expect(formatDeltaInterval(0.0004, 0.0081)).toBe('[just above 0, +0.008]');
    expect(formatDeltaInterval(-0.3, -0.0002)).toBe('[−0.300, just below 0]');
    // Otherwise one decimal, as every score; a bound that is 0 stays 0.0.
    expect(formatDeltaInterval(-1.23, 4.56)).toBe('[−1.2, +4.6]');
    expect(formatDeltaInterval(0, 0)).toBe('[0.0, 0.0]');
  });

  it('shows no judge cost beside a run that had no judge', () => {
    const unpriced = { inputTokens: 900, outputTokens: 120, costUsd: null };
    const none = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    // Walk 44: "simulators cost not priced · judge $0.00" for a run without a judge.
    expect(runCostText({ usage: unpriced, judge: null, judgeUsage: none })).toBe('cost not priced');
    // A judge's calls made after the run (asked again from the run page) still show.
    expect(
      runCostText({
        usage: unpriced,
        judge: null,
        judgeUsage: { inputTokens: 50, outputTokens: 5, costUsd: 0.01 },
      }),
    ).toBe('simulators cost not priced · judge $0.01');
  });

  it('spells sampling and mode as the CLI does', () => {
    expect(samplingLabel({ kind: 'agentworld' })).toBe('agentworld');
    expect(samplingLabel({ kind: 'random', count: 7 })).toBe('random:7');
    expect(modeLabel({ kind: 'open' })).toBe('open loop');
    expect(modeLabel({ kind: 'closed', steps: 3 })).toBe('closed loop, 3 steps');
  });

  it('measures progress over done and failed units', () => {
    expect(progressShare({ done: 50, failed: 10, total: 120 })).toBe(0.5);
    expect(progressShare({ done: 0, failed: 0, total: 0 })).toBe(0);
  });
});

describe('newerRun', () => {
  it('keeps the snapshot with more finished work, whatever order they come in', () => {
    const early = benchRun({ done: 10 });
    const later = benchRun({ done: 40, failed: 2 });
    expect(newerRun(null, early)).toBe(early);
    expect(newerRun(early, later)).toBe(later);
    expect(newerRun(later, early)).toBe(later);
  });

  it('never lets a finished run go back to running', () => {
    const finished = benchRun({ status: 'canceled', done: 30 });
    expect(newerRun(finished, benchRun({ status: 'running', done: 30 }))).toBe(finished);
    const done = benchRun({ status: 'done', done: 200 });
    expect(newerRun(benchRun({ done: 199 }), done)).toBe(done);
  });

  it('takes another run as is', () => {
    const other = benchRun({ id: 'run-2' });
    expect(newerRun(benchRun({ done: 100 }), other)).toBe(other);
  });
});
