import type { Store } from '@terrarium/db';
import {
  criteriaJudgePrompt,
  parseCriteriaAnswer,
  type Criterion,
  type JudgeMessage,
  type RewardItem,
} from '@terrarium/rubrics';
import {
  addUnitUsage,
  NO_USAGE,
  ruleSetVersionName,
  type BenchItem,
  type ItemScore,
  type RunUsage,
  type UnitUsage,
} from '@terrarium/schema';
import { createBackgroundJobs, type BackgroundJobs } from './background-jobs';

/**
 * One judging call: the prompt in, the model's answer text and what the call cost out (the caller
 * owns the endpoint and its price).
 */
export type CompleteJudge = (
  messages: JudgeMessage[],
) => Promise<{ content: string; usage: UnitUsage }>;

export interface RejudgeSpec {
  queueId: string;
  /** The rule-set version whose criteria the judge applies; names the scores it writes. */
  ruleSet: { name: string; version: number; criteria: readonly Criterion[] };
  judge: CompleteJudge;
  /** What the judge reads of an item and its prediction (the caller renders actions as text). */
  rewardItem: (item: BenchItem, prediction: string) => RewardItem;
  /** Judge requests in flight at once. */
  concurrency?: number;
}

export type RejudgeStatus = 'running' | 'done' | 'failed';

export interface RejudgeProgress {
  id: string;
  queueId: string;
  /** The scores' metric prefix: `NAME@vN` (a criterion's metric is `NAME@vN/ID`). */
  judgeVersion: string;
  status: RejudgeStatus;
  total: number;
  done: number;
  /** Items whose answer could not be read (their scores are stored as null). */
  unparsed: number;
  /** What the judge's calls cost so far (priced as a bench run's judge is). */
  usage: RunUsage;
  error: string | null;
}

/**
 * Judges every item of a label queue with a rule-set version's criteria and stores the scores
 * beside the bench run's own (source `judge`, metric `NAME@vN/criterion`, on [0, 1]), so the
 * humans' agreement with each judge version can be compared. Re-running a version replaces its
 * scores; other versions and the run's own judge are never touched.
 */
export async function runRejudge(
  store: Store,
  spec: RejudgeSpec,
  onProgress: (progress: RejudgeProgress) => void,
  id: string,
): Promise<RejudgeProgress> {
  const judgeVersion = ruleSetVersionName(spec.ruleSet);
  const progress: RejudgeProgress = {
    id,
    queueId: spec.queueId,
    judgeVersion,
    status: 'running',
    total: 0,
    done: 0,
    unparsed: 0,
    usage: NO_USAGE,
    error: null,
  };
  try {
    const queue = await store.getLabelQueue(spec.queueId);
    if (queue === null) throw new Error(`no label queue ${spec.queueId}`);
    const run = await store.getBenchRun(queue.runId);
    if (run === null) throw new Error(`the run of label queue ${queue.id} is gone`);
    const criteria = spec.ruleSet.criteria.filter((criterion) => criterion.rule === undefined);
    if (criteria.length === 0) throw new Error(`${judgeVersion} has no criteria for a judge`);
    const itemIds = (await store.labelQueueItems(queue.id)).map((item) => item.itemId);
    progress.total = itemIds.length;
    onProgress({ ...progress });
    const items = new Map(
      (await store.getBenchItemsByIds({ name: run.bench, version: run.benchVersion }, itemIds)).map(
        (item) => [item.id, item],
      ),
    );
    const predictions = new Map(
      (
        await store.listPredictions(run.id, { sim: queue.sim, itemIds, offset: 0, limit: 1000 })
      ).rows.map((prediction) => [prediction.itemId, prediction]),
    );
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < itemIds.length; index = next++) {
        const itemId = itemIds[index] ?? '';
        const item = items.get(itemId);
        const observation = predictions.get(itemId)?.observation ?? null;
        if (item !== undefined && observation !== null) {
          const { content: answer, usage } = await spec.judge(
            criteriaJudgePrompt(spec.rewardItem(item, observation.content), criteria),
          );
          progress.usage = addUnitUsage(progress.usage, usage);
          const points = parseCriteriaAnswer(answer, criteria);
          const scores: ItemScore[] = criteria.map((criterion) => {
            const point = points.get(criterion.id) ?? null;
            const { min, max } = criterion.scale;
            return {
              itemId,
              sim: queue.sim,
              source: 'judge',
              metric: `${judgeVersion}/${criterion.id}`,
              value: point === null ? null : (point - min) / (max - min),
              detail: { answer: answer.slice(0, 2000) },
            };
          });
          if (scores.some((score) => score.value === null)) progress.unparsed += 1;
          await store.addScores(run.id, scores);
        }
        progress.done += 1;
        onProgress({ ...progress });
      }
    };
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(16, spec.concurrency ?? 4)) }, worker),
    );
    progress.status = 'done';
  } catch (error) {
    progress.status = 'failed';
    progress.error = error instanceof Error ? error.message : String(error);
  }
  onProgress({ ...progress });
  return progress;
}

/** Re-judge jobs of one process, polled by id (background-jobs.ts). */
export type RejudgeJobs = BackgroundJobs<RejudgeSpec, RejudgeProgress>;

export function createRejudgeJobs(store: Store): RejudgeJobs {
  return createBackgroundJobs<RejudgeSpec, RejudgeProgress>(
    'rejudge',
    (id, spec) => ({
      id,
      queueId: spec.queueId,
      judgeVersion: ruleSetVersionName(spec.ruleSet),
      status: 'running',
      total: 0,
      done: 0,
      unparsed: 0,
      usage: NO_USAGE,
      error: null,
    }),
    (spec, onProgress, id) => runRejudge(store, spec, onProgress, id),
  );
}
