import {
  scoreGridUnits,
  type BenchRun,
  type BenchRunListing,
  type CellDelta,
  type CellItem,
  type LeaderboardCell,
  type ScoreSlice,
} from '@terrarium/schema';

/** Builders of what the bench procedures return; tests override what they look at. */
export function benchRun(overrides: Partial<BenchRun> = {}): BenchRun {
  return {
    id: 'run-1',
    bench: 'tau2-retail',
    benchVersion: 1,
    sims: ['replay', 'retrieval'],
    judge: null,
    mode: { kind: 'open' },
    split: 'test',
    status: 'running',
    createdAt: '2026-11-29T21:00:00.000Z',
    finishedAt: null,
    total: 200,
    done: 0,
    failed: 0,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    judgeUsage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    error: null,
    prompts: null,
    ...overrides,
  };
}

/** A run as the lists of runs get it: owing no verdicts unless told. */
export function listedRun(overrides: Partial<BenchRunListing> = {}): BenchRunListing {
  return { ...benchRun(overrides), missingVerdicts: overrides.missingVerdicts ?? 0 };
}

export function leaderboardCell(overrides: Partial<LeaderboardCell> = {}): LeaderboardCell {
  return {
    sim: 'replay',
    task: 'overall',
    source: 'rule',
    metric: 'content',
    mean: 100,
    ciLow: 100,
    ciHigh: 100,
    n: 100,
    missing: 0,
    ...overrides,
  };
}

/**
 * A slice of `values` (0-1, null for missing) of one simulator at x on one axis, counted as the
 * store counts them.
 */
export function scoreSlice(
  values: readonly (number | null)[],
  overrides: Partial<Omit<ScoreSlice, 'rows' | 'n' | 'gridSum'>> = {},
): ScoreSlice {
  const present = values.filter((value): value is number => value !== null);
  return {
    sim: 'replay',
    axis: 'turn',
    x: 0,
    rows: values.length,
    n: present.length,
    gridSum: present.reduce((sum, value) => sum + scoreGridUnits(value), 0),
    ...overrides,
  };
}

export function cellItem(overrides: Partial<CellItem> = {}): CellItem {
  return {
    itemId: 'item-1',
    sim: 'retrieval',
    task: 'tau2-bench/retail',
    domain: 'tool',
    turnIndex: 3,
    totalTurns: 9,
    historyLength: 3,
    origin: {
      dataset: 'tau2',
      trajectory: '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae',
      stepIndex: 6,
    },
    trajectory: {
      externalId: '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae',
      taskId: '13',
      trial: '0',
    },
    action: 'get_order_details({"order_id":"#W2378156"})',
    real: { kind: 'json', content: '{"order_id":"#W2378156","status":"delivered"}', callId: null },
    predicted: {
      kind: 'json',
      content: '{"order_id":"#W2378156","status":"pending"}',
      callId: null,
    },
    value: 40,
    scores: { 'rule:content': 40, 'rule:exact-match': 0, 'judge:factuality': 25 },
    latencyMs: 3.5,
    error: null,
    ...overrides,
  };
}

/** A comparison cell: retrieval's overall content score, 30 → 40, a significant +10. */
export function cellDelta(overrides: Partial<CellDelta>): CellDelta {
  return {
    sim: 'retrieval',
    task: 'overall',
    source: 'rule',
    metric: 'content',
    before: leaderboardCell({ sim: 'retrieval', mean: 30 }),
    after: leaderboardCell({ sim: 'retrieval', mean: 40 }),
    delta: 10,
    sameItems: true,
    deltaLow: 4.1,
    deltaHigh: 15.9,
    significant: true,
    ...overrides,
  };
}
