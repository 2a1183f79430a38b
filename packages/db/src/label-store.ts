import type { Queryable, Row, SqlExecutor } from './executor';
import { toJsonPayload } from './json-payload';
import {
  booleanColumn,
  intColumn,
  jsonColumn,
  nullableNumberColumn,
  nullableTextColumn,
  textColumn,
  ISO_UTC,
} from './row';

/** Someone who labels, edits or adjudicates: a user id (or `import:NAME`) and a display name. */
export interface LabelActor {
  id: string;
  name: string;
}

/** A criterion's score per criterion id; null means "not applicable / left empty". */
export type CriterionScores = Record<string, number | null>;

export interface LabelCriterionSpec {
  id: string;
  text: string;
  /** Inclusive integer scale, e.g. 1..5. */
  min: number;
  max: number;
  weight: number;
  /** What each point means, keyed by the number (a rule set's `scale.labels`). */
  labels?: Record<string, string>;
}

export interface NewLabelQueue {
  name: string;
  runId: string;
  sim: string;
  /** How the items were chosen (kept for the record; the ids are already chosen). */
  selection: unknown;
  labelsPerItem: number;
  blind: boolean;
  criteria: readonly LabelCriterionSpec[];
  ruleSet: { name: string; version: number } | null;
  leaseSeconds: number;
  /** Names of the labelers the queue is for; null: every labeler. */
  labelers: readonly string[] | null;
  createdBy: string;
  /** In queue order; duplicates are an error. */
  itemIds: readonly string[];
}

export interface LabelQueue {
  id: string;
  name: string;
  runId: string;
  sim: string;
  selection: unknown;
  labelsPerItem: number;
  blind: boolean;
  criteria: LabelCriterionSpec[];
  ruleSet: { name: string; version: number } | null;
  leaseSeconds: number;
  labelers: string[] | null;
  createdBy: string;
  createdAt: string;
  items: number;
  labels: number;
  /** Items holding all their labels. */
  completeItems: number;
  /**
   * Items still short of labels that someone skipped: with few labelers they may wait for ever,
   * until a labeler takes their skips back.
   */
  skippedItems: number;
}

export interface LabelQueueItemState {
  ordinal: number;
  itemId: string;
  labelCount: number;
  leasedBy: string | null;
  leaseExpiresAt: string | null;
}

export interface ItemLease {
  queueId: string;
  ordinal: number;
  itemId: string;
  expiresAt: string;
}

export interface StoredLabel {
  id: string;
  queueId: string;
  ordinal: number;
  itemId: string;
  labelerId: string;
  labelerName: string;
  scores: CriterionScores;
  comment: string;
  flagged: boolean;
  origin: 'queue' | 'import';
  createdAt: string;
  updatedAt: string;
}

export interface LabelInput {
  scores: CriterionScores;
  comment: string;
  flagged: boolean;
}

/**
 * A change to a label: the scores named are set (null clears one) and the others kept; the comment
 * and the flag change only when given. A client that sends one criterion changes that one.
 */
export interface LabelEdit {
  scores: CriterionScores;
  comment?: string | undefined;
  flagged?: boolean | undefined;
}

export interface LabelEvent {
  labelId: string;
  actorId: string;
  actorName: string;
  action: 'create' | 'edit' | 'import';
  scores: CriterionScores;
  comment: string;
  flagged: boolean;
  at: string;
}

export interface ImportedLabel extends LabelInput {
  itemId: string;
  labelerName: string;
}

export interface Adjudication {
  queueId: string;
  ordinal: number;
  itemId: string;
  criterion: string;
  value: number | null;
  comment: string;
  researcherId: string;
  researcherName: string;
  createdAt: string;
}

export type SubmitOutcome =
  { ok: true; label: StoredLabel } | { ok: false; reason: 'no-lease' | 'already-labeled' };

export interface LabelStore {
  createLabelQueue(queue: NewLabelQueue): Promise<LabelQueue>;
  /**
   * Deletes the queue with its items, leases, skips, labels, their history and adjudications (one
   * statement: the foreign keys cascade); false when there is no such queue.
   */
  deleteLabelQueue(queueId: string): Promise<boolean>;
  listLabelQueues(): Promise<LabelQueue[]>;
  getLabelQueue(queueId: string): Promise<LabelQueue | null>;
  labelQueueItems(queueId: string): Promise<LabelQueueItemState[]>;
  /**
   * The labeler's current lease, else a lease on the first item that still needs labels, that no
   * one else holds unexpired, and that this labeler has neither labeled nor skipped. One UPDATE.
   */
  leaseNextItem(queueId: string, labeler: LabelActor): Promise<ItemLease | null>;
  /** Extends a lease the labeler still holds; null when it was lost (expired and taken). */
  renewLease(queueId: string, ordinal: number, labelerId: string): Promise<ItemLease | null>;
  releaseLease(queueId: string, ordinal: number, labelerId: string): Promise<boolean>;
  /** Releases every lease the labeler holds, in every queue (on logout); how many there were. */
  releaseLeasesOf(labelerId: string): Promise<number>;
  /** Releases the lease and does not offer the item to this labeler again, unless taken back. */
  skipItem(queueId: string, ordinal: number, labelerId: string): Promise<boolean>;
  /** How many items of the queue this labeler has skipped. */
  countSkips(queueId: string, labelerId: string): Promise<number>;
  /** Offers the labeler's skipped items again; how many there were. */
  takeBackSkips(queueId: string, labelerId: string): Promise<number>;
  /** Stores the label only while the labeler holds the lease; releases it in the same transaction. */
  submitLabel(
    queueId: string,
    ordinal: number,
    labeler: LabelActor,
    input: LabelInput,
  ): Promise<SubmitOutcome>;
  /**
   * Changes the actor's own label in the named queue, as `LabelEdit` says; null, with nothing
   * written, when the label is not in that queue or not the actor's. Every change is kept in
   * `label_events` as the label it left behind; an edit that changes nothing writes nothing and
   * returns the label as it is. The scores are not checked here: the caller checks
   * them against the same queue's criteria, which never change once the queue is made.
   */
  editLabel(
    queueId: string,
    labelId: string,
    actor: LabelActor,
    edit: LabelEdit,
  ): Promise<StoredLabel | null>;
  listLabels(queueId: string, filter?: { labelerId?: string }): Promise<StoredLabel[]>;
  labelHistory(labelId: string): Promise<LabelEvent[]>;
  /**
   * Labels done elsewhere; an existing label of the item by the same labeler name is replaced.
   * Unknown items are listed.
   */
  importLabels(
    queueId: string,
    labels: readonly ImportedLabel[],
  ): Promise<{ imported: number; unknownItems: string[] }>;
  adjudicate(
    queueId: string,
    ordinal: number,
    criterion: string,
    value: number | null,
    comment: string,
    researcher: LabelActor,
  ): Promise<Adjudication>;
  /** The latest adjudication per (item, criterion). */
  listAdjudications(queueId: string): Promise<Adjudication[]>;
}

const ID_PATTERN = /^[1-9][0-9]{0,17}$/;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC})`;

const QUEUE_COLUMNS = `q.id::text AS id, q.name, q.run_id::text AS run_id, q.sim, q.selection,
  q.labels_per_item, q.blind, q.criteria, q.rule_set, q.lease_seconds, q.labelers, q.created_by,
  ${iso('q.created_at')} AS created_at,
  (SELECT count(*)::int FROM label_queue_items i WHERE i.queue_id = q.id) AS items,
  (SELECT count(*)::int FROM labels l WHERE l.queue_id = q.id) AS labels,
  (SELECT count(*)::int FROM label_queue_items i
    WHERE i.queue_id = q.id AND i.label_count >= q.labels_per_item) AS complete_items,
  (SELECT count(*)::int FROM label_queue_items i
    WHERE i.queue_id = q.id AND i.label_count < q.labels_per_item
      AND EXISTS (SELECT 1 FROM label_skips s
        WHERE s.queue_id = i.queue_id AND s.ordinal = i.ordinal)) AS skipped_items`;

const LABEL_COLUMNS = `l.id::text AS id, l.queue_id::text AS queue_id, l.ordinal, i.item_id,
  l.labeler_id, l.labeler_name, l.scores, l.comment, l.flagged, l.origin,
  ${iso('l.created_at')} AS created_at, ${iso('l.updated_at')} AS updated_at`;

const LEASE_RETURNING = `RETURNING t.queue_id::text AS queue_id, t.ordinal, t.item_id,
  ${iso('t.lease_expires_at')} AS expires_at`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scoresOf(value: unknown): CriterionScores {
  if (!isRecord(value)) throw new Error('label scores: expected an object');
  const scores: CriterionScores = {};
  for (const [key, score] of Object.entries(value)) {
    if (score !== null && typeof score !== 'number') {
      throw new Error(`label scores.${key}: expected a number or null`);
    }
    scores[key] = score;
  }
  return scores;
}

function pointLabelsOf(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  const labels: Record<string, string> = {};
  for (const [point, text] of Object.entries(value))
    if (typeof text === 'string') labels[point] = text;
  return labels;
}

function criteriaOf(value: unknown): LabelCriterionSpec[] {
  if (!Array.isArray(value)) throw new Error('queue criteria: expected an array');
  return value.map((entry: unknown, index) => {
    if (!isRecord(entry)) throw new Error(`queue criteria.${index}: expected an object`);
    const { id, text, min, max, weight } = entry;
    if (
      typeof id !== 'string' ||
      typeof text !== 'string' ||
      typeof min !== 'number' ||
      typeof max !== 'number' ||
      typeof weight !== 'number'
    ) {
      throw new Error(`queue criteria.${index}: expected {id, text, min, max, weight}`);
    }
    const labels = pointLabelsOf(entry['labels']);
    return labels === undefined
      ? { id, text, min, max, weight }
      : { id, text, min, max, weight, labels };
  });
}

function ruleSetOf(value: unknown): { name: string; version: number } | null {
  if (value === null || value === undefined) return null;
  if (
    isRecord(value) &&
    typeof value['name'] === 'string' &&
    typeof value['version'] === 'number'
  ) {
    return { name: value['name'], version: value['version'] };
  }
  throw new Error('queue rule_set: expected {name, version} or null');
}

function labelersOf(value: unknown): string[] | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value) && value.every((name) => typeof name === 'string')) return value;
  throw new Error('queue labelers: expected an array of names or null');
}

function queueFromRow(row: Row): LabelQueue {
  return {
    id: textColumn(row, 'id'),
    name: textColumn(row, 'name'),
    runId: textColumn(row, 'run_id'),
    sim: textColumn(row, 'sim'),
    selection: jsonColumn(row, 'selection'),
    labelsPerItem: intColumn(row, 'labels_per_item'),
    blind: booleanColumn(row, 'blind'),
    criteria: criteriaOf(jsonColumn(row, 'criteria')),
    ruleSet: ruleSetOf(jsonColumn(row, 'rule_set')),
    leaseSeconds: intColumn(row, 'lease_seconds'),
    labelers: labelersOf(jsonColumn(row, 'labelers')),
    createdBy: textColumn(row, 'created_by'),
    createdAt: textColumn(row, 'created_at'),
    items: intColumn(row, 'items'),
    labels: intColumn(row, 'labels'),
    completeItems: intColumn(row, 'complete_items'),
    skippedItems: intColumn(row, 'skipped_items'),
  };
}

function originOf(value: string): 'queue' | 'import' {
  if (value === 'queue' || value === 'import') return value;
  throw new Error(`label origin: unexpected ${value}`);
}

function actionOf(value: string): LabelEvent['action'] {
  if (value === 'create' || value === 'edit' || value === 'import') return value;
  throw new Error(`label event action: unexpected ${value}`);
}

function labelFromRow(row: Row): StoredLabel {
  return {
    id: textColumn(row, 'id'),
    queueId: textColumn(row, 'queue_id'),
    ordinal: intColumn(row, 'ordinal'),
    itemId: textColumn(row, 'item_id'),
    labelerId: textColumn(row, 'labeler_id'),
    labelerName: textColumn(row, 'labeler_name'),
    scores: scoresOf(jsonColumn(row, 'scores')),
    comment: textColumn(row, 'comment'),
    flagged: booleanColumn(row, 'flagged'),
    origin: originOf(textColumn(row, 'origin')),
    createdAt: textColumn(row, 'created_at'),
    updatedAt: textColumn(row, 'updated_at'),
  };
}

function leaseFromRow(row: Row): ItemLease {
  return {
    queueId: textColumn(row, 'queue_id'),
    ordinal: intColumn(row, 'ordinal'),
    itemId: textColumn(row, 'item_id'),
    expiresAt: textColumn(row, 'expires_at'),
  };
}

function adjudicationFromRow(row: Row): Adjudication {
  return {
    queueId: textColumn(row, 'queue_id'),
    ordinal: intColumn(row, 'ordinal'),
    itemId: textColumn(row, 'item_id'),
    criterion: textColumn(row, 'criterion'),
    value: nullableNumberColumn(row, 'value'),
    comment: textColumn(row, 'comment'),
    researcherId: textColumn(row, 'researcher_id'),
    researcherName: textColumn(row, 'researcher_name'),
    createdAt: textColumn(row, 'created_at'),
  };
}

async function recordEvent(
  tx: Queryable,
  labelId: string,
  actor: LabelActor,
  action: LabelEvent['action'],
  input: LabelInput,
): Promise<void> {
  await tx.query(
    `INSERT INTO label_events (label_id, actor_id, actor_name, action, scores, comment, flagged)
     VALUES ($1::bigint, $2, $3, $4, $5::jsonb, $6, $7)`,
    [
      labelId,
      actor.id,
      actor.name,
      action,
      toJsonPayload(input.scores),
      input.comment,
      input.flagged,
    ],
  );
}

async function labelById(db: Queryable, labelId: string): Promise<StoredLabel | null> {
  const [row] = await db.query(
    `SELECT ${LABEL_COLUMNS} FROM labels l
     JOIN label_queue_items i ON i.queue_id = l.queue_id AND i.ordinal = l.ordinal
     WHERE l.id = $1::bigint`,
    [labelId],
  );
  return row ? labelFromRow(row) : null;
}

async function queueRow(db: Queryable, queueId: string): Promise<LabelQueue | null> {
  if (!ID_PATTERN.test(queueId)) return null;
  const [row] = await db.query(
    `SELECT ${QUEUE_COLUMNS} FROM label_queues q WHERE q.id = $1::bigint`,
    [queueId],
  );
  return row ? queueFromRow(row) : null;
}

export function createLabelStore(executor: SqlExecutor): LabelStore {
  return {
    async createLabelQueue(queue) {
      if (new Set(queue.itemIds).size !== queue.itemIds.length) {
        throw new Error(`label queue ${queue.name}: an item appears twice`);
      }
      if (!ID_PATTERN.test(queue.runId)) throw new Error(`no bench run ${queue.runId}`);
      const id = await executor.transaction(async (tx) => {
        const [row] = await tx.query(
          `INSERT INTO label_queues (name, run_id, sim, selection, labels_per_item, blind, criteria,
             rule_set, lease_seconds, labelers, created_by)
           VALUES ($1, $2::bigint, $3, $4::jsonb, $5, $6, $7::jsonb, $8::jsonb, $9, $10::jsonb, $11)
           RETURNING id::text AS id`,
          [
            queue.name,
            queue.runId,
            queue.sim,
            toJsonPayload(queue.selection ?? null),
            queue.labelsPerItem,
            queue.blind,
            toJsonPayload(queue.criteria),
            queue.ruleSet === null ? null : toJsonPayload(queue.ruleSet),
            queue.leaseSeconds,
            queue.labelers === null ? null : JSON.stringify(queue.labelers),
            queue.createdBy,
          ],
        );
        if (!row) throw new Error('the label queue was not stored');
        const queueId = textColumn(row, 'id');
        if (queue.itemIds.length > 0) {
          await tx.query(
            `INSERT INTO label_queue_items (queue_id, ordinal, item_id)
             SELECT $1::bigint, (x.ordinality - 1)::int, x.item_id
             FROM jsonb_array_elements_text($2::jsonb) WITH ORDINALITY AS x(item_id, ordinality)`,
            [queueId, JSON.stringify(queue.itemIds)],
          );
        }
        return queueId;
      });
      const stored = await queueRow(executor, id);
      if (!stored) throw new Error(`label queue ${id} vanished after it was created`);
      return stored;
    },

    async deleteLabelQueue(queueId) {
      if (!ID_PATTERN.test(queueId)) return false;
      const rows = await executor.query(
        'DELETE FROM label_queues WHERE id = $1::bigint RETURNING id',
        [queueId],
      );
      return rows.length > 0;
    },

    async listLabelQueues() {
      const rows = await executor.query(
        `SELECT ${QUEUE_COLUMNS} FROM label_queues q ORDER BY q.id DESC`,
      );
      return rows.map(queueFromRow);
    },

    getLabelQueue: (queueId) => queueRow(executor, queueId),

    async labelQueueItems(queueId) {
      if (!ID_PATTERN.test(queueId)) return [];
      const rows = await executor.query(
        `SELECT ordinal, item_id, label_count, leased_by,
           CASE WHEN lease_expires_at IS NULL THEN NULL ELSE ${iso('lease_expires_at')} END
             AS lease_expires_at
         FROM label_queue_items WHERE queue_id = $1::bigint ORDER BY ordinal`,
        [queueId],
      );
      return rows.map((row) => ({
        ordinal: intColumn(row, 'ordinal'),
        itemId: textColumn(row, 'item_id'),
        labelCount: intColumn(row, 'label_count'),
        leasedBy: nullableTextColumn(row, 'leased_by'),
        leaseExpiresAt: nullableTextColumn(row, 'lease_expires_at'),
      }));
    },

    async leaseNextItem(queueId, labeler) {
      if (!ID_PATTERN.test(queueId)) return null;
      // The inner SELECT locks the candidate row and skips rows another transaction is leasing
      // right now (PostgreSQL); the outer WHERE re-checks the lease so that a row whose lease was
      // granted between snapshot and lock is never granted twice. The labeler's own lease sorts
      // first so a reload resumes the same item.
      const rows = await executor.query(
        `UPDATE label_queue_items t
         SET leased_by = $2, lease_expires_at = now() + make_interval(secs => q.lease_seconds)
         FROM label_queues q
         WHERE q.id = t.queue_id AND (t.queue_id, t.ordinal) = (
           SELECT c.queue_id, c.ordinal FROM label_queue_items c
           JOIN label_queues cq ON cq.id = c.queue_id
           WHERE c.queue_id = $1::bigint
             AND (c.leased_by = $2
               OR (c.label_count < cq.labels_per_item
                 AND (c.leased_by IS NULL OR c.lease_expires_at < now())
                 AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.queue_id = c.queue_id
                   AND l.ordinal = c.ordinal AND l.labeler_id = $2)
                 AND NOT EXISTS (SELECT 1 FROM label_skips s WHERE s.queue_id = c.queue_id
                   AND s.ordinal = c.ordinal AND s.labeler_id = $2)))
           ORDER BY (c.leased_by IS NOT DISTINCT FROM $2) DESC, c.ordinal
           LIMIT 1
           FOR UPDATE OF c SKIP LOCKED)
           AND (t.leased_by = $2 OR t.leased_by IS NULL OR t.lease_expires_at < now())
         ${LEASE_RETURNING}`,
        [queueId, labeler.id],
      );
      const [row] = rows;
      return row ? leaseFromRow(row) : null;
    },

    async renewLease(queueId, ordinal, labelerId) {
      if (!ID_PATTERN.test(queueId)) return null;
      const [row] = await executor.query(
        `UPDATE label_queue_items t
         SET lease_expires_at = now() + make_interval(secs => q.lease_seconds)
         FROM label_queues q
         WHERE q.id = t.queue_id AND t.queue_id = $1::bigint AND t.ordinal = $2 AND t.leased_by = $3
         ${LEASE_RETURNING}`,
        [queueId, ordinal, labelerId],
      );
      return row ? leaseFromRow(row) : null;
    },

    async releaseLease(queueId, ordinal, labelerId) {
      if (!ID_PATTERN.test(queueId)) return false;
      const rows = await executor.query(
        `UPDATE label_queue_items SET leased_by = NULL, lease_expires_at = NULL
         WHERE queue_id = $1::bigint AND ordinal = $2 AND leased_by = $3 RETURNING ordinal`,
        [queueId, ordinal, labelerId],
      );
      return rows.length > 0;
    },

    async releaseLeasesOf(labelerId) {
      const rows = await executor.query(
        `UPDATE label_queue_items SET leased_by = NULL, lease_expires_at = NULL
         WHERE leased_by = $1 RETURNING ordinal`,
        [labelerId],
      );
      return rows.length;
    },

    async skipItem(queueId, ordinal, labelerId) {
      if (!ID_PATTERN.test(queueId)) return false;
      return executor.transaction(async (tx) => {
        const released = await tx.query(
          `UPDATE label_queue_items SET leased_by = NULL, lease_expires_at = NULL
           WHERE queue_id = $1::bigint AND ordinal = $2 AND leased_by = $3 RETURNING ordinal`,
          [queueId, ordinal, labelerId],
        );
        if (released.length === 0) return false;
        await tx.query(
          `INSERT INTO label_skips (queue_id, ordinal, labeler_id) VALUES ($1::bigint, $2, $3)
           ON CONFLICT DO NOTHING`,
          [queueId, ordinal, labelerId],
        );
        return true;
      });
    },

    async countSkips(queueId, labelerId) {
      if (!ID_PATTERN.test(queueId)) return 0;
      const [row] = await executor.query(
        `SELECT count(*)::int AS n FROM label_skips WHERE queue_id = $1::bigint AND labeler_id = $2`,
        [queueId, labelerId],
      );
      return row ? intColumn(row, 'n') : 0;
    },

    async takeBackSkips(queueId, labelerId) {
      if (!ID_PATTERN.test(queueId)) return 0;
      const rows = await executor.query(
        `DELETE FROM label_skips WHERE queue_id = $1::bigint AND labeler_id = $2 RETURNING ordinal`,
        [queueId, labelerId],
      );
      return rows.length;
    },

    async submitLabel(queueId, ordinal, labeler, input) {
      if (!ID_PATTERN.test(queueId)) return { ok: false, reason: 'no-lease' };
      return executor.transaction(async (tx): Promise<SubmitOutcome> => {
        // Releasing the lease and counting the label is one conditional UPDATE: only the lease
        // holder gets past it, and only while the item still needs labels.
        const claimed = await tx.query(
          `UPDATE label_queue_items t SET leased_by = NULL, lease_expires_at = NULL,
             label_count = t.label_count + 1
           FROM label_queues q
           WHERE q.id = t.queue_id AND t.queue_id = $1::bigint AND t.ordinal = $2
             AND t.leased_by = $3 AND t.label_count < q.labels_per_item
             AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.queue_id = t.queue_id
               AND l.ordinal = t.ordinal AND l.labeler_id = $3)
           RETURNING t.ordinal`,
          [queueId, ordinal, labeler.id],
        );
        if (claimed.length === 0) {
          const [own] = await tx.query(
            'SELECT 1 FROM labels WHERE queue_id = $1::bigint AND ordinal = $2 AND labeler_id = $3',
            [queueId, ordinal, labeler.id],
          );
          return { ok: false, reason: own ? 'already-labeled' : 'no-lease' };
        }
        const [row] = await tx.query(
          `INSERT INTO labels (queue_id, ordinal, labeler_id, labeler_name, scores, comment, flagged,
             origin)
           VALUES ($1::bigint, $2, $3, $4, $5::jsonb, $6, $7, 'queue') RETURNING id::text AS id`,
          [
            queueId,
            ordinal,
            labeler.id,
            labeler.name,
            toJsonPayload(input.scores),
            input.comment,
            input.flagged,
          ],
        );
        if (!row) throw new Error('the label was not stored');
        const labelId = textColumn(row, 'id');
        await recordEvent(tx, labelId, labeler, 'create', input);
        const label = await labelById(tx, labelId);
        if (!label) throw new Error(`label ${labelId} vanished after it was stored`);
        return { ok: true, label };
      });
    },

    async editLabel(queueId, labelId, actor, edit) {
      if (!ID_PATTERN.test(queueId) || !ID_PATTERN.test(labelId)) return null;
      return executor.transaction(async (tx) => {
        // Queue and owner are conditions of the UPDATE itself: a label of another queue (whose
        // criteria the scores were not checked against) or of another labeler is never touched.
        // `||` merges in the statement, so two edits of different criteria both stay. An edit
        // that changes nothing writes nothing: no new time, no history event saying it changed.
        const parameters = [
          labelId,
          queueId,
          actor.id,
          toJsonPayload(edit.scores),
          edit.comment ?? null,
          edit.flagged ?? null,
        ];
        const [updated] = await tx.query(
          `UPDATE labels SET scores = scores || $4::jsonb, comment = COALESCE($5::text, comment),
             flagged = COALESCE($6::boolean, flagged), updated_at = now()
           WHERE id = $1::bigint AND queue_id = $2::bigint AND labeler_id = $3
             AND (scores || $4::jsonb, COALESCE($5::text, comment), COALESCE($6::boolean, flagged))
               IS DISTINCT FROM (scores, comment, flagged)
           RETURNING scores, comment, flagged`,
          parameters,
        );
        if (updated === undefined) {
          const [unchanged] = await tx.query(
            `SELECT 1 FROM labels WHERE id = $1::bigint AND queue_id = $2::bigint AND labeler_id = $3`,
            parameters.slice(0, 3),
          );
          return unchanged === undefined ? null : labelById(tx, labelId);
        }
        await recordEvent(tx, labelId, actor, 'edit', {
          scores: scoresOf(jsonColumn(updated, 'scores')),
          comment: textColumn(updated, 'comment'),
          flagged: booleanColumn(updated, 'flagged'),
        });
        return labelById(tx, labelId);
      });
    },

    async listLabels(queueId, filter = {}) {
      if (!ID_PATTERN.test(queueId)) return [];
      const rows = await executor.query(
        `SELECT ${LABEL_COLUMNS} FROM labels l
         JOIN label_queue_items i ON i.queue_id = l.queue_id AND i.ordinal = l.ordinal
         WHERE l.queue_id = $1::bigint AND ($2::text IS NULL OR l.labeler_id = $2::text)
         ORDER BY l.ordinal, l.id`,
        [queueId, filter.labelerId ?? null],
      );
      return rows.map(labelFromRow);
    },

    async labelHistory(labelId) {
      if (!ID_PATTERN.test(labelId)) return [];
      const rows = await executor.query(
        `SELECT label_id::text AS label_id, actor_id, actor_name, action, scores, comment, flagged,
           ${iso('at')} AS at
         FROM label_events WHERE label_id = $1::bigint ORDER BY id`,
        [labelId],
      );
      return rows.map((row) => ({
        labelId: textColumn(row, 'label_id'),
        actorId: textColumn(row, 'actor_id'),
        actorName: textColumn(row, 'actor_name'),
        action: actionOf(textColumn(row, 'action')),
        scores: scoresOf(jsonColumn(row, 'scores')),
        comment: textColumn(row, 'comment'),
        flagged: booleanColumn(row, 'flagged'),
        at: textColumn(row, 'at'),
      }));
    },

    async importLabels(queueId, labels) {
      if (!ID_PATTERN.test(queueId)) throw new Error(`no label queue ${queueId}`);
      return executor.transaction(async (tx) => {
        const itemRows = await tx.query(
          'SELECT ordinal, item_id FROM label_queue_items WHERE queue_id = $1::bigint',
          [queueId],
        );
        const ordinals = new Map(
          itemRows.map((row) => [textColumn(row, 'item_id'), intColumn(row, 'ordinal')]),
        );
        const unknown = new Set<string>();
        let imported = 0;
        for (const label of labels) {
          const ordinal = ordinals.get(label.itemId);
          if (ordinal === undefined) {
            unknown.add(label.itemId);
            continue;
          }
          // A label by the same name on the item is this labeler's (an export read back in, or
          // labels redone elsewhere): it is replaced, not doubled under a second labeler id.
          const [same] = await tx.query(
            `SELECT labeler_id FROM labels WHERE queue_id = $1::bigint AND ordinal = $2
               AND labeler_name = $3 ORDER BY id LIMIT 1`,
            [queueId, ordinal, label.labelerName],
          );
          const actor = {
            id: same === undefined ? `import:${label.labelerName}` : textColumn(same, 'labeler_id'),
            name: label.labelerName,
          };
          // xmax = 0 tells a fresh insert from an update of an existing row.
          const [row] = await tx.query(
            `INSERT INTO labels (queue_id, ordinal, labeler_id, labeler_name, scores, comment,
               flagged, origin)
             VALUES ($1::bigint, $2, $3, $4, $5::jsonb, $6, $7, 'import')
             ON CONFLICT (queue_id, ordinal, labeler_id) DO UPDATE SET scores = EXCLUDED.scores,
               comment = EXCLUDED.comment, flagged = EXCLUDED.flagged, updated_at = now()
             RETURNING id::text AS id, (xmax = 0) AS inserted`,
            [
              queueId,
              ordinal,
              actor.id,
              actor.name,
              toJsonPayload(label.scores),
              label.comment,
              label.flagged,
            ],
          );
          if (!row) throw new Error('the imported label was not stored');
          if (row['inserted'] === true) {
            await tx.query(
              `UPDATE label_queue_items SET label_count = label_count + 1
               WHERE queue_id = $1::bigint AND ordinal = $2`,
              [queueId, ordinal],
            );
          }
          await recordEvent(tx, textColumn(row, 'id'), actor, 'import', label);
          imported += 1;
        }
        return { imported, unknownItems: [...unknown] };
      });
    },

    async adjudicate(queueId, ordinal, criterion, value, comment, researcher) {
      if (!ID_PATTERN.test(queueId)) throw new Error(`no label queue ${queueId}`);
      const [row] = await executor.query(
        `WITH a AS (
           INSERT INTO label_adjudications (queue_id, ordinal, criterion, value, comment,
             researcher_id, researcher_name)
           VALUES ($1::bigint, $2, $3, $4, $5, $6, $7)
           RETURNING *)
         SELECT a.queue_id::text AS queue_id, a.ordinal, i.item_id, a.criterion, a.value, a.comment,
           a.researcher_id, a.researcher_name, ${iso('a.created_at')} AS created_at
         FROM a JOIN label_queue_items i ON i.queue_id = a.queue_id AND i.ordinal = a.ordinal`,
        [queueId, ordinal, criterion, value, comment, researcher.id, researcher.name],
      );
      if (!row) throw new Error(`no item ${ordinal} in label queue ${queueId}`);
      return adjudicationFromRow(row);
    },

    async listAdjudications(queueId) {
      if (!ID_PATTERN.test(queueId)) return [];
      const rows = await executor.query(
        `SELECT DISTINCT ON (a.ordinal, a.criterion) a.queue_id::text AS queue_id, a.ordinal,
           i.item_id, a.criterion, a.value, a.comment, a.researcher_id, a.researcher_name,
           ${iso('a.created_at')} AS created_at
         FROM label_adjudications a
         JOIN label_queue_items i ON i.queue_id = a.queue_id AND i.ordinal = a.ordinal
         WHERE a.queue_id = $1::bigint
         ORDER BY a.ordinal, a.criterion, a.id DESC`,
        [queueId],
      );
      return rows.map(adjudicationFromRow);
    },
  };
}
