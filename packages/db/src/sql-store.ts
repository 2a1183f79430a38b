import {
  Domain,
  JsonValue,
  Metadata,
  OUTCOME_FILTERS,
  OutcomeFilter,
  SourceFormat,
  ToolSchema,
  type DatasetSummary,
  type QuarantinedRecord,
  type Step,
  type StepWindow,
  type Trajectory,
  type TrajectoryDetail,
  type TrajectoryFilter,
  type TrajectorySummary,
} from '@terrarium/schema';
import { createAuthStore } from './auth-store';
import { createBenchStore } from './bench-store';
import { createEnvCatalogStore } from './env-catalog-store';
import { createCurriculumStore } from './curriculum-store';
import { createImportJobStore } from './import-job-store';
import { createLabelStore } from './label-store';
import { createRuleSetStore } from './rule-set-store';
import type { Queryable, Row, SqlExecutor } from './executor';
import { lockBatch, tryLockBatch, unlockBatch } from './batch-lock';
import { deleteUnfinishedBatch, SqlImportBatch } from './import-batch';
import {
  booleanColumn,
  intColumn,
  jsonColumn,
  nullableBooleanColumn,
  nullableIntColumn,
  nullableNumberColumn,
  nullableTextColumn,
  textColumn,
  ISO_UTC,
} from './row';
import { clauseQueries, parseSearch, stepSearchCondition, withSearchMatches } from './search';
import { markersOfPage, stepsOfPage } from './step-pages';
import { sourceRecordOf } from './source-record';
import type { ImportBatch, Store, TrajectoryPage } from './store';
import { DATASET_TABLES, vacuumAfterDelete } from './vacuum';

/** Steps per `getSteps` call at most, so no caller can pull a 10,000-step trajectory at once. */
export const MAX_STEP_WINDOW = 1000;
const MAX_PAGE = 1000;

// Ids are bigint in SQL and decimal strings outside; anything else names nothing.
const ID_PATTERN = /^[1-9][0-9]{0,17}$/;

const VISIBLE = `JOIN import_batches b ON b.id = t.batch_id AND b.status = 'complete'`;

const SUMMARY_COLUMNS = `t.id::text AS id, t.dataset_id::text AS dataset_id, t.external_id,
  t.source_format, t.source_benchmark, t.domain, t.task, t.agent_model, t.outcome_reward,
  t.outcome_success, t.step_count, t.transition_count,
  t.metadata->>'taskId' AS task_id, t.metadata->>'trial' AS trial`;

const DATASET_SUMMARY = `
SELECT d.id::text AS id, d.name, to_char(d.created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS created_at,
  sum(b.trajectory_count)::int AS trajectories, sum(b.transition_count)::int AS transitions,
  sum(b.step_count)::int AS steps, sum(b.quarantined_count)::int AS quarantined,
  (SELECT coalesce(jsonb_agg(DISTINCT t.domain), '[]'::jsonb) FROM trajectories t ${VISIBLE}
    WHERE t.dataset_id = d.id) AS domains,
  (SELECT coalesce(jsonb_agg(DISTINCT t.source_format), '[]'::jsonb) FROM trajectories t ${VISIBLE}
    WHERE t.dataset_id = d.id) AS formats,
  (SELECT coalesce(jsonb_agg(DISTINCT CASE WHEN t.outcome_success THEN 'success'
      WHEN NOT t.outcome_success THEN 'failure' ELSE 'unknown' END), '[]'::jsonb)
    FROM trajectories t ${VISIBLE} WHERE t.dataset_id = d.id) AS outcomes
FROM datasets d JOIN import_batches b ON b.dataset_id = d.id AND b.status = 'complete'`;

function datasetFromRow(row: Row): DatasetSummary {
  return {
    id: textColumn(row, 'id'),
    name: textColumn(row, 'name'),
    createdAt: textColumn(row, 'created_at'),
    trajectories: intColumn(row, 'trajectories'),
    transitions: intColumn(row, 'transitions'),
    steps: intColumn(row, 'steps'),
    quarantined: intColumn(row, 'quarantined'),
    domains: Domain.array().parse(jsonColumn(row, 'domains')),
    formats: SourceFormat.array().parse(jsonColumn(row, 'formats')),
    outcomes: inOutcomeOrder(OutcomeFilter.array().parse(jsonColumn(row, 'outcomes'))),
  };
}

function inOutcomeOrder(outcomes: readonly OutcomeFilter[]): OutcomeFilter[] {
  return OUTCOME_FILTERS.filter((outcome) => outcomes.includes(outcome));
}

function summaryFromRow(row: Row): TrajectorySummary {
  return {
    id: textColumn(row, 'id'),
    datasetId: textColumn(row, 'dataset_id'),
    externalId: textColumn(row, 'external_id'),
    sourceFormat: SourceFormat.parse(textColumn(row, 'source_format')),
    sourceBenchmark: nullableTextColumn(row, 'source_benchmark'),
    domain: Domain.parse(textColumn(row, 'domain')),
    task: nullableTextColumn(row, 'task'),
    agentModel: nullableTextColumn(row, 'agent_model'),
    outcome: {
      reward: nullableNumberColumn(row, 'outcome_reward'),
      success: nullableBooleanColumn(row, 'outcome_success'),
    },
    stepCount: intColumn(row, 'step_count'),
    transitionCount: intColumn(row, 'transition_count'),
    taskId: nullableTextColumn(row, 'task_id'),
    trial: nullableTextColumn(row, 'trial'),
  };
}

/** Builds the WHERE clause of a trajectory listing; parameters are numbered from 1. */
async function filterClause(
  executor: Pick<Queryable, 'query'>,
  filter: TrajectoryFilter,
): Promise<{ where: string; params: unknown[]; rank: string | null } | null> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.datasetId !== undefined) {
    if (!ID_PATTERN.test(filter.datasetId)) return null;
    conditions.push(`t.dataset_id = ${param(filter.datasetId)}::bigint`);
  }
  if (filter.externalIds !== undefined) {
    // Bench items name their trajectories so; (dataset_id, external_id) is indexed.
    conditions.push(`t.external_id = ANY(${param(filter.externalIds)}::text[])`);
  }
  if (filter.domain !== undefined) conditions.push(`t.domain = ${param(filter.domain)}`);
  if (filter.sourceFormat !== undefined) {
    conditions.push(`t.source_format = ${param(filter.sourceFormat)}`);
  }
  if (filter.outcome === 'success') conditions.push('t.outcome_success IS TRUE');
  if (filter.outcome === 'failure') conditions.push('t.outcome_success IS FALSE');
  if (filter.outcome === 'unknown') conditions.push('t.outcome_success IS NULL');
  if (filter.minSteps !== undefined)
    conditions.push(`t.step_count >= ${param(filter.minSteps)}::int`);
  if (filter.maxSteps !== undefined)
    conditions.push(`t.step_count <= ${param(filter.maxSteps)}::int`);
  const wanted: { query: string; relaxed: string; hasNot: boolean }[] = [];
  for (const clause of await clauseQueries(executor, parseSearch(filter.search ?? ''))) {
    // No lexeme (only punctuation the parser drops): it matches nothing, as `@@ ''` did.
    if (clause.tsquery === '') {
      if (!clause.negated) conditions.push('false');
      continue;
    }
    const query = `${param(clause.tsquery)}::tsquery`;
    const relaxed = clause.hasPhrase ? `${param(clause.relaxed)}::tsquery` : query;
    if (!clause.negated) wanted.push({ query, relaxed, hasNot: clause.hasNot });
    // A union of two index lookups (step pages, and the trajectory's task and id) that the
    // planner can hash, rather than an OR with EXISTS that would probe every trajectory.
    conditions.push(`t.id ${clause.negated ? 'NOT IN' : 'IN'} (
      SELECT p.trajectory_id FROM step_pages p WHERE ${stepSearchCondition(query, relaxed, clause)}
      UNION SELECT tt.id FROM trajectories tt WHERE tt.search @@ ${query})`);
  }
  return {
    where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '',
    params,
    rank: relevanceOrder(wanted),
  };
}

/**
 * Most matches of a search are listed best first: trajectories whose id or task holds more of the
 * search's terms, then those with more steps that match one, then by id. Counting steps reads
 * every matching page's step vectors, so beyond this many matches the list stays in id order
 * (and says so).
 */
export const RANKED_MATCHES = 2000;

function relevanceOrder(
  wanted: readonly { query: string; relaxed: string; hasNot: boolean }[],
): string | null {
  if (wanted.length === 0) return null;
  const inHeader = wanted
    .map(({ query }) => `(CASE WHEN t.search @@ ${query} THEN 1 ELSE 0 END)`)
    .join(' + ');
  // A page whose lexemes miss every term holds no matching step (unless a term has a `!`).
  const pageCanMatch = wanted.some(({ hasNot }) => hasNot)
    ? 'true'
    : wanted.map(({ relaxed }) => `p.lexemes @@ ${relaxed}`).join(' OR ');
  const stepMatches = wanted.map(({ query }) => `v.vector @@ ${query}`).join(' OR ');
  return `${inHeader} DESC,
    (SELECT count(*) FROM step_pages p, unnest(p.search) AS v(vector)
     WHERE p.trajectory_id = t.id AND (${pageCanMatch}) AND (${stepMatches})) DESC, t.id`;
}

function pageBounds(page: { offset: number; limit: number }): { offset: number; limit: number } {
  const offset = Math.max(0, Math.trunc(page.offset));
  const limit = Math.min(MAX_PAGE, Math.max(0, Math.trunc(page.limit)));
  return { offset, limit };
}

export interface SqlStoreHooks {
  /** Runs after the database is closed (releases the data-folder lock). */
  afterClose?: () => Promise<void>;
}

/**
 * Deletes import batches whose importer is gone. A running importer holds a session-level
 * advisory lock on its batch; if we can take that lock, the importer crashed or was killed.
 * On PGlite the folder lock already guarantees no other process, and the same test holds.
 */
export async function deleteAbandonedImports(executor: SqlExecutor): Promise<number> {
  // A queued or running import job's batch is not abandoned: the job resumes into it.
  const unfinished = await executor.query(
    `SELECT b.id::text AS id FROM import_batches b WHERE b.status = 'importing'
       AND NOT EXISTS (SELECT 1 FROM import_jobs j WHERE j.batch_id = b.id
         AND j.status IN ('queued', 'running'))
     ORDER BY b.id`,
  );
  if (unfinished.length === 0) return 0;
  const session = await executor.reserveSession();
  let deleted = 0;
  try {
    for (const row of unfinished) {
      const batchId = textColumn(row, 'id');
      if (!(await tryLockBatch(session, batchId))) continue;
      try {
        await deleteUnfinishedBatch(executor, batchId);
        deleted++;
      } finally {
        await unlockBatch(session, batchId);
      }
    }
  } finally {
    await session.release();
  }
  return deleted;
}

export function createSqlStore(executor: SqlExecutor, hooks: SqlStoreHooks = {}): Store {
  const openBatches = new Set<SqlImportBatch>();
  let closed = false;

  async function trajectoryHeader(trajectoryId: string): Promise<Row | null> {
    if (!ID_PATTERN.test(trajectoryId)) return null;
    const [row] = await executor.query(
      `SELECT ${SUMMARY_COLUMNS}, t.system_prompt, t.tools, t.tools_inferred, t.metadata, t.source_file
       FROM trajectories t ${VISIBLE} WHERE t.id = $1::bigint`,
      [trajectoryId],
    );
    return row ?? null;
  }

  async function isVisible(trajectoryId: string): Promise<number | null> {
    if (!ID_PATTERN.test(trajectoryId)) return null;
    const [row] = await executor.query(
      `SELECT t.step_count FROM trajectories t ${VISIBLE} WHERE t.id = $1::bigint`,
      [trajectoryId],
    );
    return row ? intColumn(row, 'step_count') : null;
  }

  return {
    backend: executor.backend,
    ...createBenchStore(executor),
    ...createLabelStore(executor),
    ...createRuleSetStore(executor),
    ...createEnvCatalogStore(executor),
    ...createCurriculumStore(executor),
    ...createAuthStore(executor),
    ...createImportJobStore(executor),

    async listDatasets() {
      const rows = await executor.query(`${DATASET_SUMMARY} GROUP BY d.id ORDER BY d.id`);
      return rows.map(datasetFromRow);
    },

    async getDatasetByName(name) {
      const rows = await executor.query(`${DATASET_SUMMARY} WHERE d.name = $1 GROUP BY d.id`, [
        name,
      ]);
      const [row] = rows;
      return row ? datasetFromRow(row) : null;
    },

    async beginImport(datasetName): Promise<ImportBatch> {
      if (closed) throw new Error('the store is closed');
      const name = datasetName.trim();
      if (name === '') throw new Error('a dataset needs a non-empty name');
      // The lock is taken before the batch row exists, so a concurrent open never sees this batch
      // unlocked and mistakes it for an abandoned one.
      const lockSession = await executor.reserveSession();
      try {
        const [idRow] = await lockSession.query(`SELECT nextval('import_batch_ids')::text AS id`);
        if (!idRow) throw new Error('could not allocate an import batch id');
        const batchId = textColumn(idRow, 'id');
        await lockBatch(lockSession, batchId);
        const datasetId = await executor.transaction(async (tx) => {
          await tx.query('INSERT INTO datasets (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [
            name,
          ]);
          const [dataset] = await tx.query('SELECT id::text AS id FROM datasets WHERE name = $1', [
            name,
          ]);
          if (!dataset) throw new Error(`dataset ${name} vanished while starting an import`);
          const id = textColumn(dataset, 'id');
          await tx.query(
            `INSERT INTO import_batches (id, dataset_id, status) VALUES ($1::bigint, $2::bigint, 'importing')`,
            [batchId, id],
          );
          return id;
        });
        const batch = new SqlImportBatch({
          executor,
          datasetId,
          batchId,
          lockSession,
          onSettled: (settled) => openBatches.delete(settled),
        });
        openBatches.add(batch);
        return batch;
      } catch (error) {
        await lockSession.release();
        throw error;
      }
    },

    async discardImport(batchId) {
      if (!ID_PATTERN.test(batchId)) return false;
      const session = await executor.reserveSession();
      try {
        if (!(await tryLockBatch(session, batchId))) return false;
        try {
          await deleteUnfinishedBatch(executor, batchId);
          return true;
        } finally {
          await unlockBatch(session, batchId);
        }
      } finally {
        await session.release();
      }
    },

    async resumeImport(batchId): Promise<ImportBatch> {
      if (closed) throw new Error('the store is closed');
      if (!ID_PATTERN.test(batchId)) throw new Error(`no import batch ${batchId}`);
      const lockSession = await executor.reserveSession();
      try {
        if (!(await tryLockBatch(lockSession, batchId))) {
          throw new Error(`import batch ${batchId} is being written by another process`);
        }
        const [batch] = await executor.query(
          `SELECT dataset_id::text AS dataset_id FROM import_batches
           WHERE id = $1::bigint AND status = 'importing'`,
          [batchId],
        );
        if (!batch) {
          await unlockBatch(lockSession, batchId);
          throw new Error(`import batch ${batchId} is not an unfinished import`);
        }
        const resumed = new SqlImportBatch({
          executor,
          datasetId: textColumn(batch, 'dataset_id'),
          batchId,
          lockSession,
          onSettled: (settled) => openBatches.delete(settled),
        });
        openBatches.add(resumed);
        return resumed;
      } catch (error) {
        await lockSession.release();
        throw error;
      }
    },

    async deleteDataset(datasetId) {
      if (!ID_PATTERN.test(datasetId)) return;
      const deleted = await executor.query(
        'DELETE FROM datasets WHERE id = $1::bigint RETURNING id',
        [datasetId],
      );
      if (deleted.length > 0) await vacuumAfterDelete(executor, DATASET_TABLES);
    },

    async listTrajectories(filter, page): Promise<TrajectoryPage> {
      const clause = await filterClause(executor, filter);
      if (clause === null) return { total: 0, rows: [], order: 'id' };
      const { offset, limit } = pageBounds(page);
      const { where, params, rank } = clause;
      const [countRow] = await executor.query(
        `SELECT count(*)::int AS total FROM trajectories t ${VISIBLE} ${where}`,
        params,
      );
      const total = countRow ? intColumn(countRow, 'total') : 0;
      const order = rank === null ? 'id' : total <= RANKED_MATCHES ? 'relevance' : 'id-too-many';
      if (limit === 0 || offset >= total) return { total, rows: [], order };
      const rows = await executor.query(
        `SELECT ${SUMMARY_COLUMNS} FROM trajectories t ${VISIBLE} ${where}
         ORDER BY ${order === 'relevance' && rank !== null ? rank : 't.id'}
         LIMIT ${limit} OFFSET ${offset}`,
        params,
      );
      return {
        total,
        rows: await withSearchMatches(executor, rows.map(summaryFromRow), filter.search),
        order,
      };
    },

    async getTrajectory(trajectoryId): Promise<TrajectoryDetail | null> {
      const row = await trajectoryHeader(trajectoryId);
      if (!row) return null;
      return {
        ...summaryFromRow(row),
        systemPrompt: nullableTextColumn(row, 'system_prompt'),
        tools: ToolSchema.array().parse(jsonColumn(row, 'tools')),
        toolsInferred: booleanColumn(row, 'tools_inferred'),
        metadata: Metadata.parse(jsonColumn(row, 'metadata')),
        sourceFile: textColumn(row, 'source_file'),
      };
    },

    async getStepMarkers(trajectoryId) {
      if ((await isVisible(trajectoryId)) === null) return [];
      // Markers are a column of their own: the steps' bodies are not read.
      const rows = await executor.query(
        `SELECT first_idx, markers FROM step_pages WHERE trajectory_id = $1::bigint
         ORDER BY first_idx`,
        [trajectoryId],
      );
      return rows.flatMap(markersOfPage);
    },

    async getSteps(trajectoryId, offset, limit): Promise<StepWindow> {
      const start = Math.max(0, Math.trunc(offset));
      const count = Math.min(MAX_STEP_WINDOW, Math.max(0, Math.trunc(limit)));
      const total = await isVisible(trajectoryId);
      if (total === null) return { trajectoryId, total: 0, offset: start, steps: [] };
      if (count === 0 || start >= total) return { trajectoryId, total, offset: start, steps: [] };
      const end = start + count;
      const rows = await executor.query(
        `SELECT first_idx, body, body_json FROM step_pages
         WHERE trajectory_id = $1::bigint AND first_idx < $3::int AND first_idx + step_count > $2::int
         ORDER BY first_idx`,
        [trajectoryId, start, end],
      );
      const steps: Step[] = [];
      for (const row of rows) {
        const first = intColumn(row, 'first_idx');
        const pageSteps = await stepsOfPage(row);
        pageSteps.forEach((step, at) => {
          const index = first + at;
          if (index >= start && index < end) steps.push({ ...step, index });
        });
      }
      return { trajectoryId, total, offset: start, steps };
    },

    async getSourceRecord(trajectoryId): Promise<Trajectory['source'] | null> {
      if (!ID_PATTERN.test(trajectoryId)) return null;
      const [row] = await executor.query(
        `SELECT t.source_file, t.source_line, t.source_record, t.source_record_deflated
         FROM trajectories t ${VISIBLE} WHERE t.id = $1::bigint`,
        [trajectoryId],
      );
      if (!row) return null;
      return {
        file: textColumn(row, 'source_file'),
        line: nullableIntColumn(row, 'source_line'),
        record: JsonValue.parse(await sourceRecordOf(row)),
      };
    },

    async listQuarantined(datasetId): Promise<QuarantinedRecord[]> {
      if (!ID_PATTERN.test(datasetId)) return [];
      const rows = await executor.query(
        `SELECT q.id::text AS id, q.dataset_id::text AS dataset_id, q.file, q.line,
           q.byte_offset::float8 AS byte_offset, q.reason, q.excerpt
         FROM quarantine q JOIN import_batches b ON b.id = q.batch_id AND b.status = 'complete'
         WHERE q.dataset_id = $1::bigint ORDER BY q.id`,
        [datasetId],
      );
      return rows.map((row) => ({
        id: textColumn(row, 'id'),
        datasetId: textColumn(row, 'dataset_id'),
        file: textColumn(row, 'file'),
        line: nullableIntColumn(row, 'line'),
        byteOffset: nullableIntColumn(row, 'byte_offset'),
        reason: textColumn(row, 'reason'),
        excerpt: textColumn(row, 'excerpt'),
      }));
    },

    async close() {
      if (closed) return;
      closed = true;
      try {
        // Unfinished imports are left as a crash would leave them; the next open deletes them.
        // abandon() removes the batch from the set; deleting the current entry keeps iteration valid.
        for (const batch of openBatches) await batch.abandon();
        await executor.close();
      } finally {
        await hooks.afterClose?.();
      }
    },
  };
}
