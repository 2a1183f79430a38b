import { TRPCError } from '@trpc/server';
import type { LabelQueue, StoredLabel, Store } from '@terrarium/db';
import {
  criteriaForLabelers,
  DEFAULT_CRITERIA,
  labelScaleProblem,
  labelsToJsonl,
  otherDomainNote,
  parseLabelsJsonl,
  ruleJudgeGaps,
  selectQueueItems,
  type LabelCriterion,
  type LabelLineError,
  type ParsedAdjudication,
  type ParsedLabel,
  type QueueSelection,
} from '@terrarium/labels';
import type { BenchItem, BenchRunMode, ItemScore, Observation } from '@terrarium/schema';
import { allBenchItems, readAll } from '../bench/read-all';
import { getVersion } from '../rulesets/rule-set-service';
import { isResearcher, type Principal } from '../trpc';
import { labelActor } from './label-actor';

export interface CreateQueueInput {
  name: string;
  runId: string;
  /** The run's only simulator when omitted. */
  sim?: string | undefined;
  selection: QueueSelection;
  labelsPerItem: number;
  blind: boolean;
  criteria?: LabelCriterion[] | undefined;
  /** The criteria come from this rule set (its latest version when none is named). */
  ruleSet?: { name: string; version?: number | undefined } | undefined;
  leaseSeconds: number;
  /** User names the queue is for; absent: every labeler. */
  labelers?: string[] | undefined;
}

/** What a labeler gets for one leased item. Blind queues carry no scores and no other labels. */
export interface LabelingItem {
  queue: { id: string; name: string; blind: boolean; criteria: LabelCriterion[] };
  /** Null when the item is shown again for review (the caller labeled it already). */
  lease: { ordinal: number; expiresAt: string } | null;
  ordinal: number;
  /** The caller's own label of this item, when reviewing. */
  ownLabel: StoredLabel | null;
  item: BenchItem;
  /**
   * The run's mode: closed loop, the simulator saw its own predictions for the last turns of the
   * history instead of the recorded observations `item.history` holds.
   */
  mode: BenchRunMode;
  prediction: { observation: Observation | null; error: string | null };
  /** The caller's own progress: labels given in this queue, and items still open to them. */
  progress: { labeled: number; items: number };
  /** Only outside blind mode. */
  scores: ItemScore[] | null;
  otherLabels: Pick<StoredLabel, 'labelerName' | 'scores' | 'comment' | 'flagged'>[] | null;
}

function notFound(message: string): TRPCError {
  return new TRPCError({ code: 'NOT_FOUND', message });
}

export async function requireQueue(store: Store, queueId: string): Promise<LabelQueue> {
  const queue = await store.getLabelQueue(queueId);
  if (queue === null) throw notFound(`no label queue ${queueId}`);
  return queue;
}

/** Whether the caller may work a queue: researchers and programs any, labelers their own. */
export function mayWork(principal: Principal, queue: LabelQueue): boolean {
  if (isResearcher(principal) || queue.labelers === null) return true;
  return principal.kind === 'user' && queue.labelers.includes(principal.name);
}

/** The queue, if the caller may work it; a labeler never learns of other labelers' queues. */
export async function requireWorkableQueue(
  store: Store,
  principal: Principal,
  queueId: string,
): Promise<LabelQueue> {
  const queue = await requireQueue(store, queueId);
  if (!mayWork(principal, queue)) throw notFound(`no label queue ${queueId}`);
  return queue;
}

/** The queues the caller may work. */
export async function workableQueues(store: Store, principal: Principal): Promise<LabelQueue[]> {
  return (await store.listLabelQueues()).filter((queue) => mayWork(principal, queue));
}

/** A queue as its caller may see it: a blind one keeps its simulator and run from labelers. */
export type LabelQueueView = Omit<LabelQueue, 'sim' | 'runId' | 'selection'> & {
  sim: string | null;
  runId: string | null;
  selection: unknown;
};

/**
 * What `labels.queues` and `labels.queue` answer. Items of a blind queue are shown without their
 * simulator (`itemView`); the queue said it all the same (walk 41: a labeler read `sim: replay`,
 * the oracle, and any grade is biased by knowing that), so to a labeler its simulator, run and
 * sampling are null.
 */
export function queueView(principal: Principal, queue: LabelQueue): LabelQueueView {
  if (!queue.blind || isResearcher(principal)) return queue;
  return { ...queue, sim: null, runId: null, selection: null };
}

/**
 * A new queue, with its items by domain and, when they are not all of the domain its rule set is
 * written for, a warning saying so (the form shows it; a script reads it).
 */
export interface CreatedQueue extends LabelQueue {
  domains: Record<string, number>;
  warnings: string[];
}

export async function createQueue(
  store: Store,
  principal: Principal,
  input: CreateQueueInput,
): Promise<CreatedQueue> {
  const run = await store.getBenchRun(input.runId);
  if (run === null) throw notFound(`no bench run ${input.runId}`);
  const sim = input.sim ?? (run.sims.length === 1 ? run.sims[0] : undefined);
  if (sim === undefined || !run.sims.includes(sim)) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `sim: name one of the run's simulators (${run.sims.join(', ')})`,
    });
  }
  const runItems = await allBenchItems(
    store,
    { name: run.bench, version: run.benchVersion },
    run.split,
  );
  const { domain } = input.selection;
  const items = domain === undefined ? runItems : runItems.filter((item) => item.domain === domain);
  if (domain !== undefined && items.length === 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `selection.domain: the run has no ${domain} items (it has ${domainList(countDomains(runItems))})`,
    });
  }
  // A sample larger than the run would quietly be the whole run: a queue of 1,046 items where 100
  // were meant, or a typo's 100000.
  if (input.selection.kind === 'random' && input.selection.count > items.length) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `selection.count: the run has ${items.length} ${domain === undefined ? '' : `${domain} `}items; ask for at most that many, or take all`,
    });
  }
  const gaps =
    input.selection.kind === 'disagreement'
      ? ruleJudgeGaps(
          await readAll((offset, limit) => store.listScores(run.id, { sim, offset, limit })),
          sim,
        )
      : new Map<string, number>();
  const itemIds = selectQueueItems(
    items.map((item) => item.id),
    input.selection,
    gaps,
  );
  if (itemIds.length === 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message:
        input.selection.kind === 'disagreement'
          ? 'selection: no item of this run has both a rule and a judge score'
          : 'selection: the run has no items',
    });
  }
  const ruleSet =
    input.ruleSet === undefined
      ? null
      : await getVersion({ store }, input.ruleSet.name, input.ruleSet.version);
  const criteria =
    input.criteria ??
    (ruleSet === null ? [...DEFAULT_CRITERIA] : criteriaForLabelers(ruleSet.ruleSet.criteria));
  if (criteria.length === 0) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'ruleSet: it has no criteria for people' });
  }
  if (new Set(criteria.map((criterion) => criterion.id)).size !== criteria.length) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'criteria: ids must be unique' });
  }
  // A scale too wide for a button per point is refused by name, never cut: a cut scale would put
  // human scores on another maximum than the judge's.
  const scaleProblems = criteria.flatMap((criterion) => labelScaleProblem(criterion) ?? []);
  if (scaleProblems.length > 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `${input.criteria === undefined ? 'ruleSet' : 'criteria'}: ${scaleProblems.join('; ')}`,
    });
  }
  if (input.labelers !== undefined) await checkLabelers(store, input.labelers, input.labelsPerItem);
  const queue = await store.createLabelQueue({
    name: input.name,
    runId: run.id,
    sim,
    selection: input.selection,
    labelsPerItem: input.labelsPerItem,
    blind: input.blind,
    criteria,
    ruleSet: ruleSet === null ? null : { name: ruleSet.name, version: ruleSet.version ?? 0 },
    leaseSeconds: input.leaseSeconds,
    labelers: input.labelers ?? null,
    createdBy: labelActor(principal).name,
    itemIds,
  });
  const chosen = new Set(itemIds);
  const domains = countDomains(items.filter((item) => chosen.has(item.id)));
  const written = ruleSet?.ruleSet.domain;
  const note =
    written === undefined || ruleSet === null
      ? null
      : otherDomainNote(ruleSet.name, written, domains, 'queued');
  return { ...queue, domains, warnings: note === null ? [] : [note] };
}

/** Items by domain. */
function countDomains(items: readonly Pick<BenchItem, 'domain'>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.domain] = (counts[item.domain] ?? 0) + 1;
  return counts;
}

/** "8 tool, 2 terminal": counts by domain, most first. */
function domainList(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .toSorted(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');
}

/**
 * A queue's named labelers must be accounts, and enough of them to give each item its labels: a
 * misspelt name would make a queue nobody can work, and too few one that never completes.
 */
async function checkLabelers(
  store: Store,
  labelers: readonly string[],
  labelsPerItem: number,
): Promise<void> {
  const accounts = new Set((await store.listUsers()).map((user) => user.name));
  const unknown = labelers.filter((name) => !accounts.has(name));
  if (unknown.length > 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `labelers: no account named ${unknown.join(', ')} (add one under Accounts on the Labeling page, or with terrarium users add)`,
    });
  }
  const distinct = new Set(labelers).size;
  if (distinct < labelsPerItem) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `labelsPerItem: ${labelsPerItem} labels per item need as many labelers; ${distinct} named`,
    });
  }
}

/**
 * Deletes a queue and everything graded in it (a researcher's mistake, or a finished study whose
 * labels were exported); how many labels went with it, for the page to confirm.
 */
export async function deleteQueue(
  store: Store,
  queueId: string,
): Promise<{ deleted: true; labels: number }> {
  const queue = await store.getLabelQueue(queueId);
  if (queue === null) throw notFound(`no label queue ${queueId}`);
  if (!(await store.deleteLabelQueue(queueId))) throw notFound(`no label queue ${queueId}`);
  return { deleted: true, labels: queue.labels };
}

/** Leases the caller's next item and returns everything needed to grade it; null when done. */
export async function nextItem(
  store: Store,
  principal: Principal,
  queueId: string,
): Promise<LabelingItem | null> {
  const queue = await requireWorkableQueue(store, principal, queueId);
  const actor = labelActor(principal);
  const lease = await store.leaseNextItem(queue.id, actor);
  if (lease === null) return null;
  return itemView(store, queue, actor.id, lease);
}

/** An item the caller labeled already, to review or edit their label; no lease is taken. */
export async function labeledItem(
  store: Store,
  principal: Principal,
  queueId: string,
  ordinal: number,
): Promise<LabelingItem> {
  const queue = await requireWorkableQueue(store, principal, queueId);
  const actor = labelActor(principal);
  const own = (await store.listLabels(queue.id, { labelerId: actor.id })).find(
    (label) => label.ordinal === ordinal,
  );
  if (own === undefined) throw notFound(`you have no label on item ${ordinal} of this queue`);
  return itemView(store, queue, actor.id, { ordinal, itemId: own.itemId, expiresAt: null });
}

async function itemView(
  store: Store,
  queue: LabelQueue,
  labelerId: string,
  lease: { ordinal: number; itemId: string; expiresAt: string | null },
): Promise<LabelingItem> {
  const run = await store.getBenchRun(queue.runId);
  if (run === null) throw notFound(`the run of label queue ${queue.id} is gone`);
  const [item] = await store.getBenchItemsByIds({ name: run.bench, version: run.benchVersion }, [
    lease.itemId,
  ]);
  if (item === undefined) throw notFound(`item ${lease.itemId} is not in the bench`);
  const predictions = await store.listPredictions(run.id, {
    sim: queue.sim,
    itemIds: [lease.itemId],
    offset: 0,
    limit: 1,
  });
  const prediction = predictions.rows[0];
  const labels = await store.listLabels(queue.id);
  const own = labels.filter((label) => label.labelerId === labelerId).length;
  // Blindness is decided here, on the server: a blind queue's view never carries the judge's or
  // the rules' scores, nor anybody else's labels, whoever asks.
  let scores: ItemScore[] | null = null;
  let otherLabels: LabelingItem['otherLabels'] = null;
  if (!queue.blind) {
    scores = (
      await store.listScores(run.id, {
        sim: queue.sim,
        itemIds: [lease.itemId],
        offset: 0,
        limit: 200,
      })
    ).rows;
    otherLabels = labels
      .filter((label) => label.ordinal === lease.ordinal && label.labelerId !== labelerId)
      .map(({ labelerName, scores: given, comment, flagged }) => ({
        labelerName,
        scores: given,
        comment,
        flagged,
      }));
  }
  return {
    queue: { id: queue.id, name: queue.name, blind: queue.blind, criteria: queue.criteria },
    lease: lease.expiresAt === null ? null : { ordinal: lease.ordinal, expiresAt: lease.expiresAt },
    ordinal: lease.ordinal,
    ownLabel:
      labels.find((label) => label.ordinal === lease.ordinal && label.labelerId === labelerId) ??
      null,
    item,
    mode: run.mode,
    prediction: {
      observation: prediction?.observation ?? null,
      error: prediction?.error ?? (prediction === undefined ? 'no prediction stored' : null),
    },
    progress: { labeled: own, items: queue.items },
    scores,
    otherLabels,
  };
}

/** Whether a score is no value, or an integer on the criterion's scale. */
function isOnScale(criterion: LabelCriterion, value: number | null): boolean {
  return (
    value === null || (Number.isInteger(value) && value >= criterion.min && value <= criterion.max)
  );
}

/** Why a researcher's value cannot settle a criterion of this queue, or null when it can. */
export function adjudicationProblem(
  queue: LabelQueue,
  criterionId: string,
  value: number | null,
): string | null {
  const criterion = queue.criteria.find((entry) => entry.id === criterionId);
  if (criterion === undefined) return `criterion: no ${criterionId}`;
  return isOnScale(criterion, value)
    ? null
    : `value: ${criterion.id} takes an integer from ${criterion.min} to ${criterion.max}`;
}

/** The first score of no criterion or off its criterion's scale, or null when all are on it. */
function scoreProblem(
  criteria: readonly LabelCriterion[],
  scores: Record<string, number | null>,
): { criterion: string; message: string } | null {
  const known = new Map(criteria.map((criterion) => [criterion.id, criterion]));
  for (const [id, value] of Object.entries(scores)) {
    const criterion = known.get(id);
    if (criterion === undefined)
      return { criterion: id, message: `scores.${id}: no such criterion` };
    if (!isOnScale(criterion, value)) {
      return {
        criterion: id,
        message: `scores.${id}: an integer from ${criterion.min} to ${criterion.max}`,
      };
    }
  }
  return null;
}

/** Scores must be integers on each criterion's scale (or null); unknown criteria are refused. */
export function checkScores(
  criteria: readonly LabelCriterion[],
  scores: Record<string, number | null>,
): void {
  const problem = scoreProblem(criteria, scores);
  if (problem !== null) throw new TRPCError({ code: 'BAD_REQUEST', message: problem.message });
}

export interface SubmitInput {
  queueId: string;
  ordinal: number;
  scores: Record<string, number | null>;
  comment: string;
  flagged: boolean;
}

export async function submit(
  store: Store,
  principal: Principal,
  input: SubmitInput,
): Promise<StoredLabel> {
  const queue = await requireWorkableQueue(store, principal, input.queueId);
  checkScores(queue.criteria, input.scores);
  const outcome = await store.submitLabel(queue.id, input.ordinal, labelActor(principal), {
    scores: input.scores,
    comment: input.comment,
    flagged: input.flagged,
  });
  if (outcome.ok) return outcome.label;
  throw new TRPCError({
    code: 'CONFLICT',
    message:
      outcome.reason === 'already-labeled'
        ? 'you already labeled this item'
        : 'your lease on this item has expired or was never held; take the next item',
  });
}

export interface EditInput {
  queueId: string;
  labelId: string;
  /** Only the criteria named change (null clears one); the label's other scores stay. */
  scores: Record<string, number | null>;
  /** Unchanged when absent. */
  comment?: string | undefined;
  /** Unchanged when absent. */
  flagged?: boolean | undefined;
}

/**
 * Changes the caller's own label in a queue they may work. The scores are checked against this
 * queue's criteria, and the store writes only if the label is in this queue: a queue's criteria
 * never change, so the label can hold no value off its own queue's scales.
 */
export async function editOwnLabel(
  store: Store,
  principal: Principal,
  input: EditInput,
): Promise<StoredLabel> {
  const queue = await requireWorkableQueue(store, principal, input.queueId);
  checkScores(queue.criteria, input.scores);
  const edited = await store.editLabel(queue.id, input.labelId, labelActor(principal), {
    scores: input.scores,
    comment: input.comment,
    flagged: input.flagged,
  });
  if (edited === null) throw notFound(`no label ${input.labelId} of yours in queue ${queue.id}`);
  return edited;
}

/** Labelers see their own labels; researchers every label. */
export async function visibleLabels(
  store: Store,
  principal: Principal,
  queueId: string,
): Promise<StoredLabel[]> {
  const queue = await requireWorkableQueue(store, principal, queueId);
  if (isResearcher(principal)) return store.listLabels(queue.id);
  return store.listLabels(queue.id, { labelerId: labelActor(principal).id });
}

/** The named items of the bench the queue's run scored (none when the run is gone). */
async function queueBenchItems(
  store: Store,
  queue: LabelQueue,
  itemIds: readonly string[],
): Promise<BenchItem[]> {
  const run = await store.getBenchRun(queue.runId);
  if (run === null || itemIds.length === 0) return [];
  return store.getBenchItemsByIds({ name: run.bench, version: run.benchVersion }, itemIds);
}

/**
 * Every label of a queue as JSONL, then the researchers' adjudicated values (`adjudicated: true`),
 * each line saying where its item comes from (bench task, dataset, trajectory, step): a bench item
 * id is a content hash that tells a reader nothing.
 */
export async function exportJsonl(store: Store, queueId: string): Promise<string> {
  const queue = await requireQueue(store, queueId);
  const [labels, adjudications] = await Promise.all([
    store.listLabels(queue.id),
    store.listAdjudications(queue.id),
  ]);
  const itemIds = [...new Set([...labels, ...adjudications].map((entry) => entry.itemId))];
  const items = await queueBenchItems(store, queue, itemIds);
  const provenance = new Map(
    items.map((item) => [
      item.id,
      {
        task: item.task,
        dataset: item.origin.dataset,
        trajectory: item.origin.trajectory,
        stepIndex: item.origin.stepIndex,
      },
    ]),
  );
  return labelsToJsonl(labels, {
    adjudications,
    provenance: (itemId) => provenance.get(itemId),
  });
}

/** What an import did: labels by how they compare with the queue's, settled values likewise. */
export interface ImportOutcome {
  /** Labels written: `added` + `replaced`. */
  imported: number;
  /** Labels of a labeler the item had none from. */
  added: number;
  /** Labels that changed the same labeler's earlier label of the item. */
  replaced: number;
  /** Labels equal to the labeler's stored one (an export read back in): not written again. */
  unchanged: number;
  /** Settled values stored. */
  adjudicated: number;
  /** Settled values equal to the item's latest for the criterion: not stored again. */
  adjudicationsUnchanged: number;
  unknownItems: string[];
  /** Lines refused, by 1-based line number. */
  errors: LabelLineError[];
}

/**
 * Reads labels (and settled values) into a queue. A line naming a labeler or researcher who is no
 * account refuses the whole file, so no invented labeler changes α or completes an item; other
 * bad lines are reported and the rest import. A label equal to the one stored is left alone.
 */
export async function importJsonl(
  store: Store,
  queueId: string,
  text: string,
): Promise<ImportOutcome> {
  const queue = await requireQueue(store, queueId);
  const { labels, adjudications, errors } = parseLabelsJsonl(text);
  const stored = await store.listLabels(queue.id);
  await refuseUnknownNames(store, queue.id, stored, labels, adjudications);
  const itemIds = new Set((await store.labelQueueItems(queue.id)).map((item) => item.itemId));
  const unknownItems = new Set<string>();
  // The store replaces the first label by the same name on the item; so is it compared here.
  // Keyed once: a find per line was quadratic in a large export read back.
  const firstStored = new Map<string, StoredLabel>();
  for (const entry of stored) {
    const key = JSON.stringify([entry.itemId, entry.labelerName]);
    if (!firstStored.has(key)) firstStored.set(key, entry);
  }
  const toStore: ParsedLabel[] = [];
  let added = 0;
  let unchanged = 0;
  for (const label of labels) {
    if (!itemIds.has(label.itemId)) {
      unknownItems.add(label.itemId);
      continue;
    }
    const problem = scoreProblem(queue.criteria, label.scores);
    if (problem !== null) {
      errors.push({
        line: label.lines[problem.criterion] ?? firstLine(label),
        reason: `${label.itemId} by ${label.labelerName}: ${problem.message}`,
      });
      continue;
    }
    const current = firstStored.get(JSON.stringify([label.itemId, label.labelerName]));
    if (current === undefined) added++;
    else if (sameLabel(current, label)) {
      unchanged++;
      continue;
    }
    toStore.push(label);
  }
  const result = await store.importLabels(
    queue.id,
    toStore.map(({ itemId, labelerName, scores, comment, flagged }) => ({
      itemId,
      labelerName,
      scores,
      comment,
      flagged,
    })),
  );
  const settled = await importAdjudications(store, queue, adjudications, errors);
  for (const itemId of [...result.unknownItems, ...settled.unknownItems]) unknownItems.add(itemId);
  return {
    imported: result.imported,
    added,
    replaced: result.imported - added,
    unchanged,
    adjudicated: settled.stored,
    adjudicationsUnchanged: settled.unchanged,
    unknownItems: [...unknownItems],
    errors: errors.toSorted((a, b) => a.line - b.line),
  };
}

function firstLine(label: ParsedLabel): number {
  return Math.min(...Object.values(label.lines));
}

function sameLabel(stored: StoredLabel, label: ParsedLabel): boolean {
  const ids = Object.keys(stored.scores);
  return (
    stored.comment === label.comment &&
    stored.flagged === label.flagged &&
    ids.length === Object.keys(label.scores).length &&
    ids.every((id) => id in label.scores && label.scores[id] === stored.scores[id])
  );
}

/** Lines shown per unknown name: a mistyped name can cover thousands. */
const LINES_NAMED = 10;

/**
 * Refuses the import when a line names someone who is no account: an invented labeler would count
 * in α like a real one and complete items. Names the queue already holds labels or settled values
 * under are known too (a removed account's labels stay, and an export of them reads back in), and
 * so is `program`, the name the program token labels under.
 */
async function refuseUnknownNames(
  store: Store,
  queueId: string,
  stored: readonly StoredLabel[],
  labels: readonly ParsedLabel[],
  adjudications: readonly ParsedAdjudication[],
): Promise<void> {
  const linesByName = new Map<string, number[]>();
  const note = (name: string, lines: readonly number[]) => {
    const seen = linesByName.get(name);
    if (seen === undefined) linesByName.set(name, [...lines]);
    else seen.push(...lines);
  };
  for (const label of labels) note(label.labelerName, Object.values(label.lines));
  for (const adjudication of adjudications) note(adjudication.researcherName, [adjudication.line]);
  if (linesByName.size === 0) return;
  const known = new Set([
    'program',
    ...(await store.listUsers()).map((user) => user.name),
    ...stored.map((label) => label.labelerName),
    ...(adjudications.length === 0
      ? []
      : (await store.listAdjudications(queueId)).map((entry) => entry.researcherName)),
  ]);
  const unknown = [...linesByName].filter(([name]) => !known.has(name));
  if (unknown.length === 0) return;
  const named = unknown.map(([name, lines]) => {
    const sorted = lines.toSorted((a, b) => a - b);
    const shown = sorted.slice(0, LINES_NAMED).join(', ');
    const more = sorted.length > LINES_NAMED ? ` and ${sorted.length - LINES_NAMED} more` : '';
    return `${name} (line${sorted.length === 1 ? '' : 's'} ${shown}${more})`;
  });
  throw new TRPCError({
    code: 'BAD_REQUEST',
    message: `labeler: no account named ${named.join(', ')}; nothing was imported. Add the account (Accounts on the Labeling page, or terrarium users add) or correct the name.`,
  });
}

/**
 * Adjudicated lines as the queue's adjudications, under the researcher each line names. One equal
 * to the item's latest for that criterion is not stored again, so importing an export is a no-op.
 */
async function importAdjudications(
  store: Store,
  queue: LabelQueue,
  adjudications: readonly ParsedAdjudication[],
  errors: LabelLineError[],
): Promise<{ stored: number; unchanged: number; unknownItems: string[] }> {
  if (adjudications.length === 0) return { stored: 0, unchanged: 0, unknownItems: [] };
  const ordinals = new Map(
    (await store.labelQueueItems(queue.id)).map((item) => [item.itemId, item.ordinal]),
  );
  const latest = new Map(
    (await store.listAdjudications(queue.id)).map((entry) => [
      JSON.stringify([entry.itemId, entry.criterion]),
      entry,
    ]),
  );
  const unknownItems = new Set<string>();
  let stored = 0;
  let unchanged = 0;
  for (const adjudication of adjudications) {
    const ordinal = ordinals.get(adjudication.itemId);
    if (ordinal === undefined) {
      unknownItems.add(adjudication.itemId);
      continue;
    }
    const problem = adjudicationProblem(queue, adjudication.criterion, adjudication.value);
    if (problem !== null) {
      errors.push({
        line: adjudication.line,
        reason: `${adjudication.itemId} adjudicated by ${adjudication.researcherName}: ${problem}`,
      });
      continue;
    }
    const current = latest.get(JSON.stringify([adjudication.itemId, adjudication.criterion]));
    if (current?.value === adjudication.value && current.comment === adjudication.comment) {
      unchanged++;
      continue;
    }
    await store.adjudicate(
      queue.id,
      ordinal,
      adjudication.criterion,
      adjudication.value,
      adjudication.comment,
      { id: `import:${adjudication.researcherName}`, name: adjudication.researcherName },
    );
    stored++;
  }
  return { stored, unchanged, unknownItems: [...unknownItems] };
}

/**
 * Items whose labels disagree on some criterion (spread of at least `minSpread` points), largest
 * spread first: what a researcher adjudicates.
 */
export async function disagreements(store: Store, queueId: string, minSpread: number) {
  const queue = await requireQueue(store, queueId);
  const [labels, adjudications] = await Promise.all([
    store.listLabels(queue.id),
    store.listAdjudications(queue.id),
  ]);
  const byItem = new Map<number, StoredLabel[]>();
  for (const label of labels)
    byItem.set(label.ordinal, [...(byItem.get(label.ordinal) ?? []), label]);
  const itemIds = [...new Set(labels.map((label) => label.itemId))];
  const tasks = new Map(
    (await queueBenchItems(store, queue, itemIds)).map((item) => [item.id, item.task]),
  );
  const rows = [];
  for (const [ordinal, itemLabels] of byItem) {
    for (const criterion of queue.criteria) {
      const values = itemLabels
        .map((label) => label.scores[criterion.id])
        .filter((value): value is number => typeof value === 'number');
      if (values.length < 2) continue;
      const spread = Math.max(...values) - Math.min(...values);
      if (spread < minSpread) continue;
      const adjudication = adjudications.find(
        (entry) => entry.ordinal === ordinal && entry.criterion === criterion.id,
      );
      const itemId = itemLabels[0]?.itemId ?? '';
      rows.push({
        ordinal,
        itemId,
        /** The item's bench task, to open it in its run (null when the bench no longer has it). */
        task: tasks.get(itemId) ?? null,
        criterion: criterion.id,
        spread,
        // What each labeler said besides the value: a flag or a comment often says why.
        values: itemLabels.map((label) => ({
          labeler: label.labelerName,
          value: label.scores[criterion.id] ?? null,
          comment: label.comment,
          flagged: label.flagged,
        })),
        adjudication: adjudication ?? null,
      });
    }
  }
  return rows.toSorted((a, b) => b.spread - a.spread || a.ordinal - b.ordinal);
}
