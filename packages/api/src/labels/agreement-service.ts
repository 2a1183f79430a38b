import { setImmediate as nextTurn } from 'node:timers/promises';
import type { LabelQueue, StoredLabel, Store, Adjudication } from '@terrarium/db';
import {
  AGREEMENT_BOOTSTRAP,
  agreementReport,
  comparePaired,
  type AgreementReport,
  type LabelCriterion,
  type PairedComparison,
  type RatingRecord,
} from '@terrarium/labels';
import type { ItemScore } from '@terrarium/schema';
import { readAll } from '../bench/read-all';
import { DigestCache } from './agreement-cache';
import { requireQueue } from './label-service';

// Agreement reports and comparisons by their inputs: a report is a few kB, so a few hundred of
// them (every criterion of a few dozen queues and judge versions) hold a few MB at most.
const reports = new DigestCache<AgreementReport>(128);
const comparisons = new DigestCache<PairedComparison>(512);

export interface QueueAgreement {
  queueId: string;
  labels: number;
  /** The queue's criterion ids in its rubric's order, the order every chart and table uses. */
  criteria: string[];
  /** Between labelers: α at every level, κ with two labelers, per criterion, 95% intervals. */
  labelers: AgreementReport;
  byDomain: Record<string, AgreementReport>;
  /** Per criterion: the humans' consensus against a judge's score of the same criterion. */
  humanVsJudge: Record<string, PairedComparison>;
  /** Per criterion: the consensus against the rule score (content); κ on scale points, ρ on values. */
  humanVsRules: Record<string, PairedComparison>;
}

/** Labels as the agreement functions read them: one rating per (item, labeler, criterion). */
export function ratingsOf(labels: readonly StoredLabel[]): RatingRecord[] {
  const ratings: RatingRecord[] = [];
  for (const label of labels) {
    for (const [criterion, value] of Object.entries(label.scores)) {
      if (value !== null) {
        ratings.push({ item: label.itemId, labeler: label.labelerName, criterion, value });
      }
    }
  }
  return ratings;
}

/**
 * The humans' one value per item and criterion: a researcher's adjudication when there is one,
 * else the median of the labels, which falls between two points when two labelers differ
 * (`scalePoint` rounds it for κ).
 */
export function consensus(
  labels: readonly StoredLabel[],
  adjudications: readonly Adjudication[],
  criterion: string,
): Map<string, number> {
  const values = new Map<string, number[]>();
  for (const label of labels) {
    const value = label.scores[criterion];
    if (typeof value === 'number')
      values.set(label.itemId, [...(values.get(label.itemId) ?? []), value]);
  }
  const result = new Map<string, number>();
  for (const [itemId, given] of values) {
    const sorted = given.toSorted((a, b) => a - b);
    const middle = sorted.length / 2;
    const median =
      sorted.length % 2 === 1
        ? (sorted[Math.floor(middle)] ?? 0)
        : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
    result.set(itemId, median);
  }
  for (const adjudication of adjudications) {
    if (adjudication.criterion === criterion && adjudication.value !== null) {
      result.set(adjudication.itemId, adjudication.value);
    }
  }
  return result;
}

/** A [0, 1] score on the criterion's scale, not rounded. */
function scaled(criterion: LabelCriterion, value: number): number {
  return criterion.min + value * (criterion.max - criterion.min);
}

/** A value on the scale as its nearest point, halves up (a 0/1 tie between labelers reads 1). */
export function scalePoint(value: number): number {
  return Math.floor(value + 0.5);
}

/** A [0, 1] score as the nearest point of the criterion's scale. */
export function onScale(criterion: LabelCriterion, value: number): number {
  return scalePoint(scaled(criterion, value));
}

/** Paired values of two sources, and the same pairs as scale points (comparePaired says why). */
class Pairs {
  readonly values: [number, number][] = [];
  readonly points: [number, number][] = [];

  add(criterion: LabelCriterion, human: number, machine: number): void {
    this.values.push([human, scaled(criterion, machine)]);
    this.points.push([scalePoint(human), onScale(criterion, machine)]);
  }

  compare(): PairedComparison | null {
    if (this.points.length === 0) return null;
    return comparisons.get([this.points, this.values, AGREEMENT_BOOTSTRAP], () =>
      comparePaired(this.points, AGREEMENT_BOOTSTRAP, this.values),
    );
  }
}

/**
 * Agreement of the ratings with the intervals every surface shows (`AGREEMENT_BOOTSTRAP`, as
 * `terrarium labels agreement --bootstrap` computes them), kept by the ratings: the report does
 * not depend on their order, so they are keyed in a fixed one.
 */
export function labelerAgreement(ratings: readonly RatingRecord[]): AgreementReport {
  const key = ratings
    .map((rating) =>
      JSON.stringify([rating.item, rating.labeler, rating.criterion ?? '', rating.value]),
    )
    .toSorted();
  return reports.get([key, AGREEMENT_BOOTSTRAP], () =>
    agreementReport(ratings, { bootstrap: AGREEMENT_BOOTSTRAP }),
  );
}

/** Judge scores of a criterion: the metric named like it (a rubric re-judge can prefix it). */
export function judgeMetric(criterion: string, judgeVersion: string | null): string {
  return judgeVersion === null ? criterion : `${judgeVersion}/${criterion}`;
}

export async function queueAgreement(
  store: Store,
  queueId: string,
  options: { judgeVersion?: string | null } = {},
): Promise<QueueAgreement> {
  const queue = await requireQueue(store, queueId);
  const [labels, adjudications] = await Promise.all([
    store.listLabels(queue.id),
    store.listAdjudications(queue.id),
  ]);
  // Only the labeled items' scores and domains: the run's others (thousands, on a run a queue
  // samples from) enter no figure, and reading them all cost more than the figures.
  const itemIds = [...new Set([...labels, ...adjudications].map((entry) => entry.itemId))];
  const [scores, domains] = await Promise.all([
    itemScores(store, queue, itemIds),
    itemDomains(store, queue, itemIds),
  ]);
  const ratings = ratingsOf(labels);
  // Each part is computed in one go; between parts other requests get their turn, so a large
  // queue's bootstraps delay the page's cheap calls (the queue, its disagreements) by one part
  // at most, not by all of them (walk 52: they waited 1.3 s for a 4 ms answer).
  const labelers = labelerAgreement(ratings);
  const byDomain: Record<string, AgreementReport> = {};
  for (const domain of [...new Set(domains.values())].toSorted()) {
    const subset = ratings.filter((rating) => domains.get(rating.item) === domain);
    if (subset.length === 0) continue;
    await nextTurn();
    byDomain[domain] = labelerAgreement(subset);
  }
  await nextTurn();
  return {
    queueId: queue.id,
    labels: labels.length,
    criteria: queue.criteria.map((criterion) => criterion.id),
    labelers,
    byDomain,
    ...versusMachines(queue, labels, adjudications, scores, options.judgeVersion ?? null),
  };
}

/** Human consensus against the judge and the rules, per criterion. */
export function versusMachines(
  queue: Pick<LabelQueue, 'criteria'>,
  labels: readonly StoredLabel[],
  adjudications: readonly Adjudication[],
  scores: readonly ItemScore[],
  judgeVersion: string | null,
): Pick<QueueAgreement, 'humanVsJudge' | 'humanVsRules'> {
  const judge = new Map<string, number>();
  const content = new Map<string, number>();
  for (const score of scores) {
    if (score.value === null) continue;
    if (score.source === 'judge') judge.set(`${score.metric}\n${score.itemId}`, score.value);
    if (score.source === 'rule' && score.metric === 'content')
      content.set(score.itemId, score.value);
  }
  const humanVsJudge: Record<string, PairedComparison> = {};
  const humanVsRules: Record<string, PairedComparison> = {};
  for (const criterion of queue.criteria) {
    // By item id: a bootstrap picks pairs by their place, so the labels' order (which an
    // import or an edit changes) must not move the interval.
    const humans = [...consensus(labels, adjudications, criterion.id)].toSorted(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    const metric = judgeMetric(criterion.id, judgeVersion);
    const judgePairs = new Pairs();
    const rulePairs = new Pairs();
    for (const [itemId, human] of humans) {
      const judged = judge.get(`${metric}\n${itemId}`);
      if (judged !== undefined) judgePairs.add(criterion, human, judged);
      const rule = content.get(itemId);
      // The content score is high when the prediction is faithful; a pitfall criterion (negative
      // weight) is high when something is wrong, so it is compared with the content score's
      // complement, or its ρ's sign would mean the opposite of every other criterion's.
      const faithful = criterion.weight < 0 && rule !== undefined ? 1 - rule : rule;
      if (faithful !== undefined) rulePairs.add(criterion, human, faithful);
    }
    const versusJudge = judgePairs.compare();
    if (versusJudge !== null) humanVsJudge[criterion.id] = versusJudge;
    const versusRules = rulePairs.compare();
    if (versusRules !== null) humanVsRules[criterion.id] = versusRules;
  }
  return { humanVsJudge, humanVsRules };
}

/** The scores of these items of the queue's run, for the queue's simulator. */
async function itemScores(
  store: Store,
  queue: LabelQueue,
  itemIds: readonly string[],
  source?: 'judge',
): Promise<ItemScore[]> {
  if (itemIds.length === 0) return [];
  return readAll((offset, limit) =>
    store.listScores(queue.runId, {
      sim: queue.sim,
      itemIds,
      ...(source === undefined ? {} : { source }),
      offset,
      limit,
    }),
  );
}

async function itemDomains(
  store: Store,
  queue: LabelQueue,
  itemIds: readonly string[],
): Promise<Map<string, string>> {
  const run = await store.getBenchRun(queue.runId);
  if (run === null || itemIds.length === 0) return new Map();
  const items = await store.getBenchItemsByIds(
    { name: run.bench, version: run.benchVersion },
    itemIds,
  );
  return new Map(items.map((item) => [item.id, item.domain]));
}

/**
 * The judge versions with scores on this queue's run: `null` for the bench run's own judge,
 * else each re-judge's `RULESET@vN` prefix.
 */
export async function judgeVersions(store: Store, queueId: string): Promise<(string | null)[]> {
  const queue = await requireQueue(store, queueId);
  const items = await store.labelQueueItems(queue.id);
  const scores = await itemScores(
    store,
    queue,
    items.map((item) => item.itemId),
    'judge',
  );
  const criteria = new Set(queue.criteria.map((criterion) => criterion.id));
  const versions = new Set<string | null>();
  for (const score of scores) {
    const slash = score.metric.lastIndexOf('/');
    const criterion = slash < 0 ? score.metric : score.metric.slice(slash + 1);
    if (criteria.has(criterion)) versions.add(slash < 0 ? null : score.metric.slice(0, slash));
  }
  return [...versions].toSorted((a, b) => (a ?? '').localeCompare(b ?? ''));
}

export interface JudgeFlip {
  criterion: string;
  itemId: string;
  /** The humans' consensus on the criterion's scale. */
  human: number;
  before: number;
  after: number;
  /** Whether the new judge point is closer to the humans than the old one (null: as close). */
  closer: boolean | null;
}

/** Items whose judge point moved between two judge versions, per criterion, with the humans'. */
export async function judgeFlips(
  store: Store,
  queueId: string,
  before: string | null,
  after: string | null,
): Promise<JudgeFlip[]> {
  const queue = await requireQueue(store, queueId);
  const [labels, adjudications] = await Promise.all([
    store.listLabels(queue.id),
    store.listAdjudications(queue.id),
  ]);
  const itemIds = [...new Set([...labels, ...adjudications].map((entry) => entry.itemId))];
  const scores = await itemScores(store, queue, itemIds, 'judge');
  const judged = new Map<string, number>();
  for (const score of scores) {
    if (score.value !== null) judged.set(`${score.metric}\n${score.itemId}`, score.value);
  }
  const flips: JudgeFlip[] = [];
  for (const criterion of queue.criteria) {
    for (const [itemId, median] of consensus(labels, adjudications, criterion.id)) {
      const human = scalePoint(median);
      const a = judged.get(`${judgeMetric(criterion.id, before)}\n${itemId}`);
      const b = judged.get(`${judgeMetric(criterion.id, after)}\n${itemId}`);
      if (a === undefined || b === undefined) continue;
      const x = onScale(criterion, a);
      const y = onScale(criterion, b);
      if (x === y) continue;
      const gain = Math.abs(x - human) - Math.abs(y - human);
      flips.push({
        criterion: criterion.id,
        itemId,
        human,
        before: x,
        after: y,
        closer: gain === 0 ? null : gain > 0,
      });
    }
  }
  return flips;
}
