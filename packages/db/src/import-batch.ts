import type { ImportError, ImportReport, Trajectory } from '@terrarium/schema';
import { unlockBatch } from './batch-lock';
import { CopyWriter, patchBigint } from './copy-binary';
import type { Queryable, SqlExecutor, SqlSession } from './executor';
import {
  GroupEncoder,
  PAGE_COLUMNS,
  TRAJECTORY_COLUMNS,
  type EncodedGroup,
  type FallbackText,
  type PendingRow,
} from './import-rows';
import { toJsonPayload } from './json-payload';
import { lexemesOfBinary, sortLexemes, tsvectorBinary } from './search-vector';
import { ImportJobNotRunning, type ImportBatch, type ImportGroup } from './store';
import { intColumn, textColumn } from './row';

// ~1,000 rows per statement (stack-notes "Storage speed"), and a byte cap so a window of
// 20 KB observations does not become one 20 MB parameter.
const MAX_ROWS_PER_STATEMENT = 1000;
const MAX_BYTES_PER_STATEMENT = 1024 * 1024;
const MAX_EXCERPT_CHARS = 4096;

const INSERT_QUARANTINED = `
INSERT INTO quarantine (dataset_id, batch_id, file, line, byte_offset, reason, excerpt)
SELECT $2::bigint, $3::bigint, x.file, x.line, x.byte_offset, x.reason, x.excerpt
FROM json_to_recordset($1::json) AS x(
  file text, line integer, byte_offset bigint, reason text, excerpt text)`;

/**
 * Search vectors of text the JavaScript tokenizer leaves to the database (search-vector.ts): a
 * step's as the steps table computed it from its action, reasoning and observation, a
 * trajectory's from its external id and task. As [lexeme, positions] pairs per text, in order.
 */
const FALLBACK_VECTORS = `
SELECT (SELECT json_agg(json_build_array(lexeme, positions)) FROM unnest(
  CASE WHEN x.action IS NULL THEN terrarium_search_vector(x.external_id, x.task, NULL)
  ELSE terrarium_search_vector(
    concat_ws(' ', x.action->>'name', x.action->>'command', x.action->>'keys', x.action->>'text',
      (x.action->'arguments')::text),
    x.reasoning, x.content) END)) AS v
FROM json_to_recordset($1::json) AS x(
  o integer, action jsonb, reasoning text, content text, external_id text, task text)
ORDER BY x.o`;

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

export interface BatchContext {
  executor: SqlExecutor;
  datasetId: string;
  batchId: string;
  /** Holds the batch's advisory lock; releasing it marks the batch as abandoned if unfinished. */
  lockSession: SqlSession;
  onSettled(batch: SqlImportBatch): void;
}

/**
 * Groups written at once on PostgreSQL. The server parses, checks and merges GIN entries per
 * backend, so a few connections use its cores while this process encodes the next group; the
 * pool has 6 and the batch's lock session holds one, so 3 leave room for the rest. PGlite is one
 * connection in this thread: a second writer would only queue.
 */
const POSTGRES_PARALLEL_WRITES = 3;

type Pairs = [string, number[]][];

function pairsOf(value: unknown): Pairs {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new Error('the database returned a vector that is not a list');
  return value.map((pair: unknown): [string, number[]] => {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !Array.isArray(pair[1])) {
      throw new Error('the database returned a malformed lexeme');
    }
    return [pair[0], pair[1].map(Number)];
  });
}

export class SqlImportBatch implements ImportBatch {
  readonly datasetId: string;
  readonly batchId: string;
  readonly parallelWrites: number;
  private settled = false;
  private encoder: GroupEncoder | null = null;
  /** Settles when the last group handed in has committed (or failed): groups commit in order. */
  private lastCommit: Promise<void> = Promise.resolve();

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
    this.encoder ??= new GroupEncoder();
    const encoded = this.encoder.encode(
      trajectories.map((trajectory) => ({ trajectory })),
      { datasetId: this.datasetId, batchId: this.batchId },
    );
    await this.addGroup({ encoded, quarantined: [] });
  }

  async addQuarantined(records: { error: ImportError; excerpt: string }[]): Promise<void> {
    this.assertOpen();
    if (records.length === 0) return;
    await this.addGroup({ encoded: null, quarantined: records });
  }

  /**
   * One transaction: the group's trajectories and pages (binary COPY), its quarantined records and,
   * for a job, its checkpoint. It commits only after every group handed in before it, so a
   * checkpoint never claims a group that a crash could still take away.
   */
  async addGroup(group: ImportGroup): Promise<void> {
    this.assertOpen();
    const { executor } = this.context;
    const previous = this.lastCommit;
    const { promise, resolve: done, reject: failed } = settlement();
    this.lastCommit = promise;
    // A failure is reported to this group's caller; the next group only needs to know it happened.
    this.lastCommit.catch(() => {});
    try {
      const rows = group.encoded === null ? null : await this.rowsToCopy(group.encoded);
      await executor.transaction(async (tx) => {
        if (rows !== null) {
          for (const data of rows.trajectories) {
            await tx.copyFrom(`trajectories (${TRAJECTORY_COLUMNS})`, data);
          }
          for (const pages of rows.pages) await tx.copyFrom(`step_pages (${PAGE_COLUMNS})`, pages);
        }
        await this.insertQuarantined(tx, group.quarantined);
        await previous;
        if (group.checkpoint !== undefined) {
          const { jobId, state, doneBytes, trajectories } = group.checkpoint;
          await tx.query(
            `UPDATE import_jobs SET checkpoint = $2::jsonb, done_bytes = $3, trajectories = $4,
               updated_at = now()
             WHERE id = $1::bigint`,
            [jobId, toJsonPayload(state), doneBytes, trajectories],
          );
        }
      });
      done();
    } catch (error) {
      failed(error);
      throw error;
    }
  }

  /** The group's COPY data with trajectory ids from the sequence and every vector filled in. */
  private async rowsToCopy(
    group: EncodedGroup,
  ): Promise<{ trajectories: Uint8Array[]; pages: Uint8Array[] }> {
    const { executor } = this.context;
    const idRows = await executor.query(
      `SELECT nextval('trajectory_ids')::text AS id FROM generate_series(1, $1::int)`,
      [group.trajectories],
    );
    const ids = idRows.map((row) => BigInt(textColumn(row, 'id')));
    if (ids.length !== group.trajectories) {
      throw new Error('the database returned fewer trajectory ids than asked for');
    }
    const idOf = (owner: number): bigint => {
      const id = ids[owner];
      if (id === undefined) throw new Error(`no trajectory id for row ${owner}`);
      return id;
    };
    group.trajectoryIdAt.forEach((offset, at) =>
      patchBigint(group.trajectoryRows, offset, idOf(group.trajectoryOwners[at] ?? -1)),
    );
    group.pageIdAt.forEach((offset, at) =>
      patchBigint(group.pageRows, offset, idOf(group.pageOwners[at] ?? -1)),
    );
    const vectors = await this.fallbackVectors([
      ...group.pendingTrajectories,
      ...group.pendingPages,
    ]);
    // Rows whose vectors the database computed go in a second COPY of the same table.
    const trajectories = [group.trajectoryRows];
    if (group.pendingTrajectories.length > 0) {
      const extra = new CopyWriter();
      for (const row of group.pendingTrajectories) {
        const at = extra.raw(row.prefix);
        const [vector] = completedVectors(row, vectors);
        extra.tsvectorBytes(vector ?? tsvectorBinary([], []));
        extra.patchBigint(at + row.idAt, idOf(row.owner));
      }
      trajectories.push(extra.finish());
    }
    const pages = [group.pageRows];
    if (group.pendingPages.length > 0) {
      const extra = new CopyWriter();
      for (const row of group.pendingPages) {
        const at = extra.raw(row.prefix);
        const stepVectors = completedVectors(row, vectors);
        extra.tsvectorArray(stepVectors);
        const lexemes = new Set<string>();
        for (const vector of stepVectors)
          for (const lexeme of lexemesOfBinary(vector)) lexemes.add(lexeme);
        const sorted = sortLexemes(lexemes);
        extra.tsvectorBytes(
          tsvectorBinary(
            sorted,
            sorted.map(() => []),
          ),
        );
        extra.patchBigint(at + row.idAt, idOf(row.owner));
      }
      pages.push(extra.finish());
    }
    return { trajectories, pages };
  }

  /** The database's vectors of every pending text, keyed by the text object. */
  private async fallbackVectors(
    rows: readonly PendingRow[],
  ): Promise<Map<FallbackText, Uint8Array>> {
    const texts = rows.flatMap((row) => row.texts.flatMap((text) => (text === null ? [] : [text])));
    const vectors = new Map<FallbackText, Uint8Array>();
    for (let start = 0; start < texts.length; start += MAX_ROWS_PER_STATEMENT) {
      const slice = texts.slice(start, start + MAX_ROWS_PER_STATEMENT);
      // The action is already JSON (toJsonPayload); it is spliced in as a value, not a string.
      const payload = `[${slice
        .map((text, o) =>
          text.kind === 'step'
            ? `{"o":${o},"action":${text.action},"reasoning":${toJsonPayload(text.reasoning)},"content":${toJsonPayload(text.content)}}`
            : `{"o":${o},"external_id":${toJsonPayload(text.externalId)},"task":${toJsonPayload(text.task)}}`,
        )
        .join(',')}]`;
      const result = await this.context.executor.query(FALLBACK_VECTORS, [payload]);
      slice.forEach((text, at) => {
        const pairs = pairsOf(result[at]?.['v']);
        vectors.set(
          text,
          tsvectorBinary(
            pairs.map(([lexeme]) => lexeme),
            pairs.map(([, positions]) => positions),
          ),
        );
      });
    }
    return vectors;
  }

  private async insertQuarantined(
    tx: Queryable,
    records: readonly { error: ImportError; excerpt: string }[],
  ): Promise<void> {
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
    for (const payload of chunks.flush()) {
      await tx.query(INSERT_QUARANTINED, [payload, this.datasetId, this.batchId]);
    }
  }

  async dropRepeated(): Promise<{ trajectories: number; transitions: number }> {
    this.assertOpen();
    // Deflating is deterministic, so equal records have equal bytes; older rows kept JSON. Steps
    // and pages go with their trajectory (ON DELETE CASCADE).
    const [row] = await this.context.executor.query(
      `WITH dropped AS (
         DELETE FROM trajectories t
         WHERE t.batch_id = $1::bigint AND EXISTS (
           SELECT 1 FROM trajectories o JOIN import_batches b ON b.id = o.batch_id
           WHERE o.dataset_id = t.dataset_id AND o.batch_id <> t.batch_id AND b.status = 'complete'
             AND o.external_id = t.external_id AND o.source_format = t.source_format
             AND (o.source_record_deflated = t.source_record_deflated
               OR o.source_record::text = t.source_record::text))
         RETURNING t.transition_count)
       SELECT count(*)::int AS trajectories, coalesce(sum(transition_count), 0)::int AS transitions
       FROM dropped`,
      [this.batchId],
    );
    return row === undefined
      ? { trajectories: 0, transitions: 0 }
      : {
          trajectories: intColumn(row, 'trajectories'),
          transitions: intColumn(row, 'transitions'),
        };
  }

  async commit(job?: { id: string; report: ImportReport }): Promise<string | null> {
    this.assertOpen();
    this.settled = true;
    try {
      // The batch's rows become visible to every read in this one statement. A job's batch only
      // while the job still runs, which the same statement marks done: a cancel committed first
      // leaves nothing to claim, and one that comes after finds the job done (its UPDATE waits
      // for this row on PostgreSQL and then no longer matches), so the two cannot both win.
      const committed = await this.context.executor.query(
        `WITH claimed AS (
           UPDATE import_jobs SET status = 'done', report = $3::jsonb, error = NULL,
             updated_at = now(), finished_at = now()
           WHERE $2::bigint IS NOT NULL AND id = $2::bigint AND status = 'running'
           RETURNING id)
         UPDATE import_batches SET status = 'complete', completed_at = now(),
           trajectory_count = (SELECT count(*) FROM trajectories WHERE batch_id = $1::bigint),
           step_count = (SELECT coalesce(sum(step_count), 0) FROM trajectories WHERE batch_id = $1::bigint),
           transition_count = (SELECT coalesce(sum(transition_count), 0) FROM trajectories WHERE batch_id = $1::bigint),
           quarantined_count = (SELECT count(*) FROM quarantine WHERE batch_id = $1::bigint)
         WHERE id = $1::bigint AND status = 'importing'
           AND ($2::bigint IS NULL OR EXISTS (SELECT 1 FROM claimed))
         RETURNING id`,
        [this.batchId, job?.id ?? null, job === undefined ? null : toJsonPayload(job.report)],
      );
      if (job !== undefined && committed.length === 0) {
        await deleteUnfinishedBatch(this.context.executor, this.batchId);
        throw new ImportJobNotRunning(job.id);
      }
      // The rows are in from here on: a failure of the upkeep below is said, not taken for the
      // import's (a full disk reported "import failed" for a dataset stored whole).
      try {
        // One statement at a time, with a turn of the event loop before each: the embedded store
        // holds its thread for a statement, and its promises settle without letting timers or
        // requests in, so the server answers between these rather than after all of them.
        for (const statement of UPKEEP_STATEMENTS) {
          await turnOfTheEventLoop();
          await this.context.executor.query(statement);
        }
        return null;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return `the import is stored whole, but the store's upkeep after it failed (${reason}): searches may be slow until the next import`;
      }
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
      await unlockBatch(lockSession, batchId);
    } finally {
      await lockSession.release();
      this.context.onSettled(this);
    }
  }
}

function ignore(): void {}

/**
 * After an import: the search indexes keep a large pending list (migrations 007, 015), merged now
 * so that searches do not scan it linearly; and, since PGlite runs no autovacuum, the planner's
 * statistics (it would otherwise keep the row estimates of an empty store and sort 100,000 rows
 * where an index scan in id order would do).
 */
const UPKEEP_STATEMENTS = [
  "SELECT gin_clean_pending_list('trajectories_search'::regclass)",
  "SELECT gin_clean_pending_list('step_pages_lexemes'::regclass)",
  'ANALYZE trajectories',
  'ANALYZE step_pages',
  'ANALYZE import_batches, quarantine',
];

function turnOfTheEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A promise with its resolve and reject (Promise.withResolvers is Node 22). */
function settlement(): {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
} {
  let resolve: () => void = ignore;
  let reject: (error: unknown) => void = ignore;
  const promise = new Promise<void>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** A pending row's vectors, the database's where the tokenizer left a gap. */
function completedVectors(
  row: PendingRow,
  computed: ReadonlyMap<FallbackText, Uint8Array>,
): Uint8Array[] {
  return row.vectors.map((vector, at) => {
    if (vector !== null) return vector;
    const text = row.texts[at];
    const filled = text === null || text === undefined ? undefined : computed.get(text);
    if (filled === undefined) throw new Error('a search vector was neither computed nor asked for');
    return filled;
  });
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
