import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import { countTransitions, type ImportError, type Trajectory } from '@terrarium/schema';
import type { Queryable, SqlExecutor, SqlSession } from './executor';
import { toJsonPayload } from './json-payload';
import type { ImportBatch } from './store';
import { textColumn } from './row';

/** Namespace of the session-level advisory lock an importer holds on its batch while it runs. */
export const IMPORT_BATCH_LOCK_NAMESPACE = 7_362_042;

// ~1,000 rows per statement (stack-notes "Storage speed"), and a byte cap so a window of
// 20 KB observations does not become one 20 MB parameter. 1 MB rather than 4: with 2 MB groups
// (import-files.ts) a 64 MB import into PostgreSQL peaked at 422 MB resident, against 531 MB with
// 8 MB groups of 4 MB statements.
const MAX_ROWS_PER_STATEMENT = 1000;
const MAX_BYTES_PER_STATEMENT = 1024 * 1024;
const MAX_EXCERPT_CHARS = 4096;

const INSERT_TRAJECTORIES = `
INSERT INTO trajectories (
  id, dataset_id, batch_id, external_id, source_format, source_benchmark, domain, task,
  system_prompt, tools, tools_inferred, agent_model, outcome_reward, outcome_success, metadata,
  source_file, source_line, source_record_deflated, step_count, transition_count, search)
SELECT x.id, $2::bigint, $3::bigint, x.external_id, x.source_format, x.source_benchmark, x.domain,
  x.task, x.system_prompt, x.tools, x.tools_inferred, x.agent_model, x.outcome_reward,
  x.outcome_success, x.metadata, x.source_file, x.source_line, decode(x.record, 'base64'),
  x.step_count, x.transition_count, terrarium_search_vector(x.external_id, x.task, NULL)
FROM json_to_recordset($1::json) AS x(
  id bigint, external_id text, source_format text, source_benchmark text, domain text, task text,
  system_prompt text, tools jsonb, tools_inferred boolean, agent_model text,
  outcome_reward double precision, outcome_success boolean, metadata jsonb, source_file text,
  source_line integer, record text, step_count integer, transition_count integer)`;

const deflateAsync = promisify(deflateRaw);

/**
 * The source record as raw-deflate bytes of its JSON text (migration 007 says why). Level 1: the
 * record is kept for export, not read often, and higher levels cost more than they save here.
 * zlib runs on Node's thread pool, so a group's records compress in parallel with the database.
 */
export function deflateSourceRecord(record: unknown): Promise<Buffer> {
  return deflateAsync(Buffer.from(JSON.stringify(record), 'utf8'), { level: 1 });
}

const INSERT_STEPS = `
INSERT INTO steps (
  trajectory_id, idx, actor, action_type, action, observation_kind, observation_content,
  observation_call_id, reasoning, reward, timing, metadata, search)
SELECT x.t, x.i, x.actor, x.action->>'type', x.action, x.kind, x.content, x.call_id, x.reasoning,
  x.reward, x.timing, x.metadata,
  terrarium_search_vector(
    concat_ws(' ', x.action->>'name', x.action->>'command', x.action->>'keys', x.action->>'text',
      (x.action->'arguments')::text),
    x.reasoning, x.content)
FROM json_to_recordset($1::json) AS x(
  t bigint, i integer, actor text, action jsonb, kind text, content text, call_id text,
  reasoning text, reward double precision, timing jsonb, metadata jsonb)`;

const INSERT_QUARANTINED = `
INSERT INTO quarantine (dataset_id, batch_id, file, line, byte_offset, reason, excerpt)
SELECT $2::bigint, $3::bigint, x.file, x.line, x.byte_offset, x.reason, x.excerpt
FROM json_to_recordset($1::json) AS x(
  file text, line integer, byte_offset bigint, reason text, excerpt text)`;

/** Groups JSON-encoded rows into statements of bounded row count and size. */
export class StatementChunks {
  private rows: string[] = [];
  private bytes = 0;
  readonly payloads: string[] = [];

  add(json: string): void {
    if (
      this.rows.length >= MAX_ROWS_PER_STATEMENT ||
      (this.rows.length > 0 && this.bytes + json.length > MAX_BYTES_PER_STATEMENT)
    ) {
      this.flush();
    }
    this.rows.push(json);
    this.bytes += json.length + 1;
  }

  flush(): string[] {
    if (this.rows.length > 0) this.payloads.push(`[${this.rows.join(',')}]`);
    this.rows = [];
    this.bytes = 0;
    return this.payloads;
  }
}

function trajectoryRow(id: string, trajectory: Trajectory, deflatedRecord: Buffer): string {
  return toJsonPayload({
    id,
    external_id: trajectory.externalId,
    source_format: trajectory.sourceFormat,
    source_benchmark: trajectory.sourceBenchmark,
    domain: trajectory.domain,
    task: trajectory.task,
    system_prompt: trajectory.systemPrompt,
    tools: trajectory.tools,
    tools_inferred: trajectory.toolsInferred,
    agent_model: trajectory.agentModel,
    outcome_reward: trajectory.outcome.reward,
    outcome_success: trajectory.outcome.success,
    metadata: trajectory.metadata,
    source_file: trajectory.source.file,
    source_line: trajectory.source.line,
    record: deflatedRecord.toString('base64'),
    step_count: trajectory.steps.length,
    transition_count: countTransitions(trajectory),
  });
}

export interface BatchContext {
  executor: SqlExecutor;
  datasetId: string;
  batchId: string;
  /** Holds the batch's advisory lock; releasing it marks the batch as abandoned if unfinished. */
  lockSession: SqlSession;
  onSettled(batch: SqlImportBatch): void;
}

/**
 * Groups written at once on PostgreSQL. The server parses, computes tsvectors and merges GIN
 * entries per backend, so a few connections use its cores while this process parses the next
 * group; the pool has 6 and the batch's lock session holds one, so 3 leave room for the rest.
 * PGlite is one connection in this thread: a second writer would only queue.
 */
const POSTGRES_PARALLEL_WRITES = 3;

export class SqlImportBatch implements ImportBatch {
  readonly datasetId: string;
  readonly batchId: string;
  readonly parallelWrites: number;
  private settled = false;

  constructor(private readonly context: BatchContext) {
    this.datasetId = context.datasetId;
    this.batchId = context.batchId;
    this.parallelWrites = context.executor.backend === 'postgres' ? POSTGRES_PARALLEL_WRITES : 1;
  }

  private assertOpen(): void {
    if (this.settled)
      throw new Error(`import batch ${this.batchId} is already committed or aborted`);
  }

  async addTrajectories(trajectories: Trajectory[]): Promise<void> {
    this.assertOpen();
    if (trajectories.length === 0) return;
    const { executor, datasetId, batchId } = this.context;
    const records = Promise.all(trajectories.map((t) => deflateSourceRecord(t.source.record)));
    const idRows = await executor.query(
      `SELECT nextval('trajectory_ids')::text AS id FROM generate_series(1, $1::int)`,
      [trajectories.length],
    );
    const deflated = await records;
    const headers = new StatementChunks();
    const steps = new StatementChunks();
    trajectories.forEach((trajectory, position) => {
      const idRow = idRows[position];
      if (!idRow) throw new Error('the database returned fewer trajectory ids than asked for');
      const id = textColumn(idRow, 'id');
      const record = deflated[position];
      if (!record) throw new Error('a source record was not compressed');
      headers.add(trajectoryRow(id, trajectory, record));
      // `idx` is the array position: Step.index is defined as exactly that, and windows and
      // markers rely on positions being dense.
      trajectory.steps.forEach((step, idx) => {
        steps.add(
          toJsonPayload({
            t: id,
            i: idx,
            actor: step.actor,
            action: step.action,
            kind: step.observation?.kind ?? null,
            content: step.observation?.content ?? null,
            call_id: step.observation?.callId ?? null,
            reasoning: step.reasoning,
            reward: step.reward,
            timing: step.timing,
            metadata: step.metadata,
          }),
        );
      });
    });
    await executor.transaction(async (tx) => {
      for (const payload of headers.flush()) {
        await tx.query(INSERT_TRAJECTORIES, [payload, datasetId, batchId]);
      }
      for (const payload of steps.flush()) await tx.query(INSERT_STEPS, [payload]);
    });
  }

  async addQuarantined(records: { error: ImportError; excerpt: string }[]): Promise<void> {
    this.assertOpen();
    if (records.length === 0) return;
    const chunks = new StatementChunks();
    for (const { error, excerpt } of records) {
      chunks.add(
        toJsonPayload({
          file: error.file,
          line: error.line,
          byte_offset: error.byteOffset,
          reason: error.reason,
          excerpt: excerpt.slice(0, MAX_EXCERPT_CHARS),
        }),
      );
    }
    const { executor, datasetId, batchId } = this.context;
    await executor.transaction(async (tx) => {
      for (const payload of chunks.flush()) {
        await tx.query(INSERT_QUARANTINED, [payload, datasetId, batchId]);
      }
    });
  }

  async commit(): Promise<void> {
    this.assertOpen();
    this.settled = true;
    try {
      // The batch's rows become visible to every read in this one statement.
      await this.context.executor.query(
        `UPDATE import_batches SET status = 'complete', completed_at = now(),
           trajectory_count = (SELECT count(*) FROM trajectories WHERE batch_id = $1::bigint),
           step_count = (SELECT coalesce(sum(step_count), 0) FROM trajectories WHERE batch_id = $1::bigint),
           transition_count = (SELECT coalesce(sum(transition_count), 0) FROM trajectories WHERE batch_id = $1::bigint),
           quarantined_count = (SELECT count(*) FROM quarantine WHERE batch_id = $1::bigint)
         WHERE id = $1::bigint AND status = 'importing'`,
        [this.batchId],
      );
      // The search indexes keep a large pending list (migration 007); merge it now so searches do
      // not scan it linearly. PGlite runs no autovacuum, which would otherwise do this.
      await this.context.executor.query(
        `SELECT gin_clean_pending_list('steps_search'::regclass),
           gin_clean_pending_list('trajectories_search'::regclass)`,
      );
      // Without autovacuum the planner also keeps the row estimates of an empty store and sorts
      // 100,000 rows where an index scan in id order would do.
      await this.context.executor.exec('ANALYZE import_batches, trajectories, steps, quarantine');
    } finally {
      await this.releaseLock();
    }
  }

  async abort(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    try {
      await deleteUnfinishedBatch(this.context.executor, this.batchId);
    } finally {
      await this.releaseLock();
    }
  }

  /** Lets go of the batch without finishing it, as a crash would; the next open deletes it. */
  async abandon(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await this.releaseLock();
  }

  private async releaseLock(): Promise<void> {
    const { lockSession, batchId } = this.context;
    try {
      await lockSession.query('SELECT pg_advisory_unlock($1::int, $2::int)', [
        IMPORT_BATCH_LOCK_NAMESPACE,
        batchId,
      ]);
    } finally {
      await lockSession.release();
      this.context.onSettled(this);
    }
  }
}

/** Deletes an unfinished batch with its rows, and its dataset if nothing else is left in it. */
export async function deleteUnfinishedBatch(executor: SqlExecutor, batchId: string): Promise<void> {
  await executor.transaction(async (tx: Queryable) => {
    const deleted = await tx.query(
      `DELETE FROM import_batches WHERE id = $1::bigint AND status = 'importing'
       RETURNING dataset_id::text AS dataset_id`,
      [batchId],
    );
    for (const row of deleted) {
      await tx.query(
        `DELETE FROM datasets d WHERE d.id = $1::bigint
           AND NOT EXISTS (SELECT 1 FROM import_batches b WHERE b.dataset_id = d.id)`,
        [textColumn(row, 'dataset_id')],
      );
    }
  });
}
