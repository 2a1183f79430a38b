import type { Store } from '@terrarium/db';
import {
  rewardItemOf,
  type CompiledRuleSet,
  type EvaluateOptions,
  type ItemReward,
} from '@terrarium/rubrics';
import { ruleSetVersionName, type ItemScore, type JsonValue } from '@terrarium/schema';
import { createBackgroundJobs, type BackgroundJobs, type JobProgress } from './background-jobs';

/** Predictions read, scored and stored at a time (one page of the store, one write of scores). */
const PAGE = 500;
/**
 * Progress is also reported within a page, at most this often: a page of a slow custom rule took
 * 16 s, and the page read `scoring 0/0` and then moved in steps of 500 (walk 52).
 */
const PROGRESS_EVERY_MS = 1000;

export interface RuleSetScoringSpec {
  runId: string;
  /** A saved version: its name and number name the scores it writes (`NAME@vN`). */
  ruleSet: { name: string; version: number; compiled: CompiledRuleSet };
  /** How custom rules run (a sandbox); judge criteria are left out, as in the editor's preview. */
  evaluate: EvaluateOptions;
}

export interface RuleSetScoringProgress extends JobProgress {
  runId: string;
  /** The metric the scores are stored under, source `rule`: `NAME@vN`. */
  metric: string;
  /** The run's predictions, every simulator's. */
  total: number;
  /** Predictions gone through so far (scored, or failed and passed over). */
  done: number;
  /** Failed predictions: never scored, as a run's own metrics never score them. */
  failed: number;
  /** The domain the rule set says it is written for (informational), null when it says none. */
  domain: string | null;
  /**
   * Predictions scored on items of another domain than `domain`: the rule set's domain does not
   * scope its rules (a rule's `scope.domains` does), so they are scored, and the user is told how many.
   */
  outsideDomain: number;
  error: string | null;
}

function detailOf(reward: ItemReward): JsonValue {
  return {
    breakdown: reward.breakdown.map((entry) => ({
      id: entry.id,
      kind: entry.kind,
      score: entry.score,
      weight: entry.weight,
      ...(entry.detail === undefined ? {} : { detail: entry.detail }),
    })),
  };
}

/**
 * Scores every prediction of a bench run with a saved rule-set version and stores the scores
 * beside the run's own (source `rule`, metric `NAME@vN`, the breakdown as detail), so the run's
 * leaderboard, charts and cells show the version like any other metric. Scoring again replaces
 * the version's scores; nothing else of the run is touched.
 */
export async function runRuleSetScoring(
  store: Store,
  spec: RuleSetScoringSpec,
  onProgress: (progress: RuleSetScoringProgress) => void,
  id: string,
  now: () => number = Date.now,
): Promise<RuleSetScoringProgress> {
  const progress = initialProgress(id, spec);
  let reportedAt = now();
  const report = () => {
    reportedAt = now();
    onProgress({ ...progress });
  };
  try {
    const run = await store.getBenchRun(spec.runId);
    if (run === null) throw new Error(`no bench run ${spec.runId}`);
    if (run.status === 'queued' || run.status === 'running') {
      throw new Error(`bench run ${run.id} is still ${run.status}; score it once it has ended`);
    }
    const bench = { name: run.bench, version: run.benchVersion };
    for (let offset = 0; ; offset += PAGE) {
      const page = await store.listPredictions(run.id, { offset, limit: PAGE });
      // The total is known from the first page on: said at once, before anything is scored.
      if (offset === 0) {
        progress.total = page.total;
        report();
      }
      const items = new Map(
        (
          await store.getBenchItemsByIds(
            bench,
            page.rows.map((prediction) => prediction.itemId),
          )
        ).map((item) => [item.id, item]),
      );
      // Each prediction counts as gone through when scored or passed over; its score is stored
      // with the page's.
      const wentThrough = (failed: boolean) => {
        progress.done++;
        if (failed) progress.failed++;
        if (now() - reportedAt >= PROGRESS_EVERY_MS) report();
      };
      const scores = await Promise.all(
        page.rows.map(async (prediction): Promise<ItemScore | null> => {
          const item = items.get(prediction.itemId);
          if (item === undefined || prediction.observation === null) {
            wentThrough(true);
            return null;
          }
          const reward = await spec.ruleSet.compiled.score(
            rewardItemOf(item, prediction.observation.content),
            spec.evaluate,
          );
          if (progress.domain !== null && item.domain !== progress.domain) progress.outsideDomain++;
          wentThrough(false);
          return {
            itemId: item.id,
            sim: prediction.sim,
            source: 'rule',
            metric: progress.metric,
            value: reward.score,
            detail: detailOf(reward),
          };
        }),
      );
      const stored = scores.filter((score) => score !== null);
      if (stored.length > 0) await store.addScores(run.id, stored);
      report();
      if (page.rows.length < PAGE) break;
    }
    progress.status = 'done';
  } catch (error) {
    progress.status = 'failed';
    progress.error = error instanceof Error ? error.message : String(error);
  }
  report();
  return progress;
}

function initialProgress(id: string, spec: RuleSetScoringSpec): RuleSetScoringProgress {
  return {
    id,
    runId: spec.runId,
    metric: ruleSetVersionName(spec.ruleSet),
    status: 'running',
    total: 0,
    done: 0,
    failed: 0,
    domain: spec.ruleSet.compiled.ruleSet.domain ?? null,
    outsideDomain: 0,
    error: null,
  };
}

export type RuleSetScoringJobs = BackgroundJobs<RuleSetScoringSpec, RuleSetScoringProgress>;

export function createRuleSetScoringJobs(store: Store): RuleSetScoringJobs {
  return createBackgroundJobs('rule-set-scoring', initialProgress, (spec, onProgress, id) =>
    runRuleSetScoring(store, spec, onProgress, id),
  );
}
