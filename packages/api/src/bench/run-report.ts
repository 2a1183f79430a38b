import { leaderboard as aggregate } from '@terrarium/bench';
import {
  openingSelector,
  scoreKey,
  type BenchItem,
  type BenchRun,
  type ItemScore,
  type JudgeGaps,
  type LeaderboardCell,
  type JudgeSides,
} from '@terrarium/schema';

/** One simulator's line of `bench run --json`; scores are 0-100. */
export interface SimReport {
  sim: string;
  /** Items with an Overall score. */
  items: number;
  overall: number | null;
  /**
   * The score Overall is, the one the run's page opens on: the judge's Overall when a judge ran
   * (and, once the run ended, gave any verdict), else the content-class score.
   */
  overallMetric: string;
  byDomain: Record<string, number | null>;
  byTask: Record<string, number | null>;
  /** `source:metric` → sample-weighted mean over all items. */
  byMetric: Record<string, number | null>;
  failed: number;
}

export interface RunReport {
  bench: string;
  benchVersion: number;
  run: string;
  status: BenchRun['status'];
  sims: SimReport[];
  /** Per simulator on some of whose items the judge gave no verdict (their scores missing). */
  judgeGaps: JudgeGaps[];
  /** A Turing or pairwise judge's answers by side (null: another kind of run). */
  judgeSides: JudgeSides | null;
  /** What its simulators' calls cost, and its judge's (null: not recorded), as the run says. */
  usage: BenchRun['usage'];
  judgeUsage: BenchRun['judgeUsage'];
}

const BOOTSTRAP = 0;

function meanOf(
  cells: readonly LeaderboardCell[],
  sim: string,
  task: string,
  selector: { source: string; metric: string },
): LeaderboardCell | undefined {
  return cells.find(
    (cell) =>
      cell.sim === sim &&
      cell.task === task &&
      cell.source === selector.source &&
      cell.metric === selector.metric,
  );
}

/** The `bench run --json` summary: per simulator Overall, by domain, by task and by metric. */
export function runReport(
  run: BenchRun,
  items: readonly BenchItem[],
  scores: readonly ItemScore[],
  failedBySim: ReadonlyMap<string, number>,
  judged: { judgeGaps: readonly JudgeGaps[]; judgeSides: JudgeSides | null } = {
    judgeGaps: [],
    judgeSides: null,
  },
): RunReport {
  const byTask = aggregate(scores, items, { bootstrap: BOOTSTRAP, seed: 0 });
  const selector = openingSelector(run, byTask);
  const byDomain = aggregate(
    scores,
    items.map((item) => ({ id: item.id, task: item.domain })),
    { bootstrap: BOOTSTRAP, seed: 0 },
  );
  const tasks = [...new Set(items.map((item) => item.task))].toSorted();
  const domains = [...new Set(items.map((item) => item.domain))].toSorted();
  const metrics = [
    ...new Map(
      scores.map(({ source, metric }) => [scoreKey({ source, metric }), { source, metric }]),
    ),
  ].toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    bench: run.bench,
    benchVersion: run.benchVersion,
    run: run.id,
    status: run.status,
    sims: run.sims.map((sim) => {
      const overall = meanOf(byTask, sim, 'overall', selector);
      return {
        sim,
        items: overall?.n ?? 0,
        overall: overall?.mean ?? null,
        overallMetric: scoreKey(selector),
        byDomain: Object.fromEntries(
          domains.map((domain) => [domain, meanOf(byDomain, sim, domain, selector)?.mean ?? null]),
        ),
        byTask: Object.fromEntries(
          tasks.map((task) => [task, meanOf(byTask, sim, task, selector)?.mean ?? null]),
        ),
        byMetric: Object.fromEntries(
          metrics.map(([key, metric]) => [
            key,
            meanOf(byTask, sim, 'overall', metric)?.mean ?? null,
          ]),
        ),
        failed: failedBySim.get(sim) ?? 0,
      };
    }),
    judgeGaps: [...judged.judgeGaps],
    judgeSides: judged.judgeSides,
    usage: run.usage,
    judgeUsage: run.judgeUsage,
  };
}
