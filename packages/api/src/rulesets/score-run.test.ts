import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { LeaderboardCell } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchWorkers } from '../bench/bench-workers';
import { finishedAirlineRun } from '../testing/airline-run';
import { runLeaderboard } from '../bench/run-leaderboard';
import { appRouter } from '../router';
import { PROGRAM_PRINCIPAL } from '../trpc';
import { runScoringSettled } from './score-run-service';
import { compileRuleSet, parseRuleSet } from '@terrarium/rubrics';
import { runRuleSetScoring } from '@terrarium/jobs';

/** The content rule alone: its score of a prediction is the bench's own content score. */
const CONTENT_ONLY = JSON.stringify({
  name: 'content-only',
  rules: [{ id: 'content', type: 'content' }],
  combine: { rules: 1, criteria: 0 },
});

/** Content and a custom rule run in the sandbox: no longer than the real observation. */
const WITH_CUSTOM = JSON.stringify({
  name: 'content-only',
  rules: [
    { id: 'content', type: 'content' },
    {
      id: 'not-longer',
      type: 'custom',
      source:
        'function score(item) { return item.prediction.length <= item.reference.length ? 1 : 0; }',
      // The limit is wall-clock time: on a loaded machine the default 200 ms was once exceeded,
      // and a rule that fails earns 0 (replay's mean read 99.4). This test is not about limits.
      timeoutMs: 10_000,
    },
  ],
  combine: { rules: 1, criteria: 0 },
});

/** A rule for terminals only: it applies to no tool item, so every score is n/a, never 0. */
const TERMINAL_ONLY = JSON.stringify({
  name: 'terminal-only',
  domain: 'terminal',
  rules: [{ id: 'content', type: 'content', scope: { domains: ['terminal'] } }],
  combine: { rules: 1, criteria: 0 },
});

function overall(cells: readonly LeaderboardCell[], sim: string, metric: string) {
  return cells.find(
    (cell) =>
      cell.sim === sim &&
      cell.task === 'overall' &&
      cell.source === 'rule' &&
      cell.metric === metric,
  );
}

describe('rulesets.scoreRun: a saved version scores a whole run', () => {
  let store: Store;
  let workers: BenchWorkers;
  let runId = '';
  const api = () => appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });

  async function scoreWith(name: string, version?: number) {
    const started = await api().rulesets.scoreRun({
      runId,
      ruleSet: version === undefined ? { name } : { name, version },
    });
    const settled = await runScoringSettled(store, started.id);
    await expect(api().rulesets.scoreRunStatus({ id: started.id })).resolves.toEqual(settled);
    return settled;
  }

  beforeAll(async () => {
    store = await openMemoryStore();
    ({ workers, runId } = await finishedAirlineRun(store, ['replay', 'retrieval']));
    for (const document of [CONTENT_ONLY, WITH_CUSTOM, TERMINAL_ONLY])
      await api().rulesets.save({ document, message: 'for the test' });
  }, 240_000);
  afterAll(async () => {
    await workers?.stop();
    await store?.close();
  });

  it(
    'writes NAME@vN beside the run metrics: the content rule alone gives the content column exactly',
    { timeout: 120_000 },
    async () => {
      const run = await api().bench.run({ runId });
      const settled = await scoreWith('content-only', 1);
      expect(settled).toMatchObject({
        status: 'done',
        metric: 'content-only@v1',
        // A run's total counts units: items × simulators.
        total: run.total,
        done: run.total,
        failed: run.failed,
        // The rule set names no domain: nothing is outside it.
        domain: null,
        outsideDomain: 0,
        error: null,
      });
      const board = await api().bench.leaderboard({ runId, bootstrap: 0 });
      for (const sim of ['replay', 'retrieval']) {
        const content = overall(board.cells, sim, 'content');
        const version = overall(board.cells, sim, 'content-only@v1');
        expect(content?.n).toBe(run.total / 2);
        expect(version?.n).toBe(content?.n);
        expect(version?.mean).toBeCloseTo(content?.mean ?? Number.NaN, 9);
      }
      expect(overall(board.cells, 'replay', 'content-only@v1')?.mean).toBe(100);
      expect(overall(board.cells, 'retrieval', 'content-only@v1')?.mean).toBeLessThan(100);
      // The same values, the same intervals: the bootstrap does not depend on a metric's name.
      // runLeaderboard waits for the intervals (the procedure may answer before they are ready).
      const withIntervals = await runLeaderboard(store, run, 200);
      const intervalOf = (metric: string) =>
        withIntervals
          .filter(
            (cell) => cell.sim === 'retrieval' && cell.source === 'rule' && cell.metric === metric,
          )
          .map((cell) => [cell.task, cell.mean, cell.ciLow, cell.ciHigh]);
      expect(intervalOf('content-only@v1')).toEqual(intervalOf('content'));
      expect(intervalOf('content').some(([, , low]) => typeof low === 'number')).toBe(true);
    },
  );

  it(
    'runs custom rules in the sandbox, keeps the breakdown, and a new version leaves the old one',
    { timeout: 120_000 },
    async () => {
      const settled = await scoreWith('content-only');
      expect([settled?.status, settled?.metric]).toEqual(['done', 'content-only@v2']);
      const scores = await store.listScores(runId, {
        sim: 'retrieval',
        metric: 'content-only@v2',
        offset: 0,
        limit: 1000,
      });
      const content = new Map(
        (
          await store.listScores(runId, {
            sim: 'retrieval',
            metric: 'content',
            offset: 0,
            limit: 1000,
          })
        ).rows.map((score) => [score.itemId, score.value]),
      );
      expect(scores.rows.length).toBe(content.size);
      let shorter = 0;
      for (const score of scores.rows) {
        const detail = score.detail;
        if (typeof detail !== 'object' || detail === null || !('breakdown' in detail))
          throw new Error(`no breakdown in ${JSON.stringify(detail)}`);
        const breakdown = detail.breakdown;
        if (!Array.isArray(breakdown)) throw new Error('the breakdown is not a list');
        const entries = new Map(
          breakdown.map((entry) =>
            typeof entry === 'object' && entry !== null && !Array.isArray(entry)
              ? [entry['id'], entry['score']]
              : [null, null],
          ),
        );
        const notLonger = entries.get('not-longer');
        if (notLonger !== 0 && notLonger !== 1)
          throw new Error(`not-longer scored ${String(notLonger)}`);
        shorter += notLonger;
        // Two rules of weight 1: the mean of the content score and the sandbox's answer.
        expect(score.value).toBeCloseTo(
          ((content.get(score.itemId) ?? Number.NaN) + notLonger) / 2,
          9,
        );
      }
      expect(shorter).toBeGreaterThan(0);
      expect(shorter).toBeLessThan(scores.rows.length);
      const board = await api().bench.leaderboard({ runId, bootstrap: 0 });
      expect(overall(board.cells, 'replay', 'content-only@v2')?.mean).toBe(100);
      expect(overall(board.cells, 'retrieval', 'content-only@v1')?.n).toBe(content.size);
    },
  );

  it(
    "gives a prediction's stored breakdowns, one per version that scored it (walk 52)",
    { timeout: 120_000 },
    async () => {
      // Runs after the two tests above: content-only v1 and v2 have scored the run, nothing else.
      const [v2] = (
        await store.listScores(runId, {
          sim: 'retrieval',
          metric: 'content-only@v2',
          offset: 0,
          limit: 1,
        })
      ).rows;
      if (v2 === undefined) throw new Error('content-only@v2 scored nothing');
      const scoreOf = async (metric: string) =>
        (
          await store.listScores(runId, {
            sim: 'retrieval',
            itemIds: [v2.itemId],
            metric,
            offset: 0,
            limit: 1,
          })
        ).rows[0]?.value;
      // v1's only rule is the content rule, of weight 1: its score is that rule's value.
      const content = await scoreOf('content-only@v1');
      if (typeof content !== 'number' || v2.value === null) throw new Error('no scores to read');
      // v2 averages the content rule and the custom rule (0 or 1): the custom rule's value is
      // what remains (rounded: the floating-point difference need not be exactly 0 or 1).
      const notLonger = Math.round(v2.value * 2 - content);
      const breakdowns = await api().rulesets.itemBreakdowns({
        runId,
        sim: 'retrieval',
        itemId: v2.itemId,
      });
      // The run's own `content` score (its detail is spans, not a breakdown) is left out.
      expect(breakdowns).toEqual([
        {
          metric: 'content-only@v1',
          score: content,
          breakdown: [{ id: 'content', kind: 'rule', score: content, weight: 1 }],
        },
        {
          metric: 'content-only@v2',
          score: v2.value,
          breakdown: [
            { id: 'content', kind: 'rule', score: content, weight: 1 },
            { id: 'not-longer', kind: 'rule', score: notLonger, weight: 1 },
          ],
        },
      ]);
      await expect(
        api().rulesets.itemBreakdowns({ runId, sim: 'retrieval', itemId: 'no-such-item' }),
      ).resolves.toEqual([]);
    },
  );

  it(
    'stores n/a, never 0, where no rule of the version applies',
    { timeout: 120_000 },
    async () => {
      const settled = await scoreWith('terminal-only');
      const run = await api().bench.run({ runId });
      // Written for terminals, run on an airline bench: every scored prediction is counted as
      // outside the rule set's domain, which the Rule sets page says beside the progress.
      expect(settled).toMatchObject({
        status: 'done',
        domain: 'terminal',
        outsideDomain: run.total - run.failed,
      });
      const board = await api().bench.leaderboard({ runId, bootstrap: 0 });
      const cell = overall(board.cells, 'retrieval', 'terminal-only@v1');
      // A rule metric's n/a is neither scored nor missing: the cell is empty, not 0.
      expect([cell?.n, cell?.mean, cell?.missing]).toEqual([0, null, 0]);
      const stored = await store.listScores(runId, {
        sim: 'retrieval',
        metric: 'terminal-only@v1',
        offset: 0,
        limit: 1000,
      });
      expect(stored.total).toBe(overall(board.cells, 'retrieval', 'content')?.n);
      expect(stored.rows.filter((score) => score.value !== null)).toEqual([]);
    },
  );

  it('scoring a version again replaces its scores', { timeout: 120_000 }, async () => {
    const before = await store.listScores(runId, {
      metric: 'content-only@v1',
      offset: 0,
      limit: 1,
    });
    await scoreWith('content-only', 1);
    const after = await store.listScores(runId, { metric: 'content-only@v1', offset: 0, limit: 1 });
    expect(after.total).toBe(before.total);
  });

  it(
    'says the total before scoring anything, and how far it is within a page',
    { timeout: 120_000 },
    async () => {
      const parsed = parseRuleSet(CONTENT_ONLY);
      if (!parsed.ok) throw new Error('the test rule set does not parse');
      const run = await api().bench.run({ runId });
      // A clock a second on at each reading: every prediction scored is a report's worth of time.
      let ms = 0;
      const reports: { done: number; total: number }[] = [];
      const final = await runRuleSetScoring(
        store,
        {
          runId,
          ruleSet: { name: 'content-only', version: 1, compiled: compileRuleSet(parsed.ruleSet) },
          evaluate: {},
        },
        ({ done, total }) => reports.push({ done, total }),
        'progress-test',
        () => (ms += 1000),
      );
      expect(final.status).toBe('done');
      // Walk 52 read `scoring 0/0` first, then steps of 500.
      expect(reports[0]).toEqual({ done: 0, total: run.total });
      expect(reports.map((report) => report.done)).toContain(1);
      expect(reports.at(-1)).toEqual({ done: run.total, total: run.total });
    },
  );

  it('refuses a built-in default never saved, and a run that has not ended', async () => {
    await expect(
      api().rulesets.scoreRun({ runId, ruleSet: { name: 'default-tool' } }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message:
        'ruleSet: default-tool is a built-in default; save it as a version to score a run with it',
    });
    const queued = await store.createBenchRun({
      bench: 'airline',
      sims: ['retrieval'],
      judge: null,
      mode: { kind: 'open' },
      split: 'test',
    });
    await expect(
      api().rulesets.scoreRun({ runId: queued.id, ruleSet: { name: 'content-only' } }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: `runId: bench run ${queued.id} is still queued; score it once it has ended`,
    });
    await expect(
      api().rulesets.scoreRun({ runId: '999999', ruleSet: { name: 'content-only' } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no bench run 999999' });
  });
});
