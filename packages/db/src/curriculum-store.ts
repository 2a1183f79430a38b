import type { Queryable, Row, SqlExecutor } from './executor';
import { toJsonPayload } from './json-payload';
import { intColumn, jsonColumn, nullableTextColumn, textColumn, ISO_UTC, oneOfColumn } from './row';

export type CurriculumRunStatus = 'queued' | 'running' | 'done' | 'failed' | 'canceled';

export interface NewCurriculumRun {
  /** Dataset id or name the seed tasks come from, or `builtin`. */
  dataset: string;
  /** Policy, simulator, scheduler, probes…; the caller validates them (this package has no schema for them). */
  settings: unknown;
  generations: number;
}

export interface CurriculumRunRecord {
  id: string;
  dataset: string;
  settings: unknown;
  status: CurriculumRunStatus;
  generationsTotal: number;
  generationsDone: number;
  /** The dataset its rollouts are stored in as trajectories: `curriculum-<id>-rollouts`. */
  rolloutsDataset: string;
  error: string | null;
  /** ISO 8601 UTC. */
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface CurriculumGenerationRecord {
  generation: number;
  /** As recorded; callers validate it again. */
  stats: unknown;
}

/** Curriculum runs (jobs): settings, status, the checkpoint after each generation, its figures. */
export interface CurriculumStore {
  createCurriculumRun(run: NewCurriculumRun): Promise<CurriculumRunRecord>;
  getCurriculumRun(runId: string): Promise<CurriculumRunRecord | null>;
  /** Newest first. */
  listCurriculumRuns(): Promise<CurriculumRunRecord[]>;
  /** The checkpoint of the last recorded generation (null before the first). */
  getCurriculumCheckpoint(runId: string): Promise<unknown>;
  /** Generations in order. */
  listCurriculumGenerations(runId: string): Promise<CurriculumGenerationRecord[]>;
  /**
   * Sets the status (and `finishedAt` for done/failed/canceled). With `onlyFrom`, only a run in one
   * of those statuses changes; returns whether this call changed it.
   */
  setCurriculumRunStatus(
    runId: string,
    status: CurriculumRunStatus,
    error?: string | null,
    onlyFrom?: readonly CurriculumRunStatus[],
  ): Promise<boolean>;
  /**
   * Records generation `generation` with its figures and the checkpoint after it, in one
   * transaction, only if the run is running with `generation - 1` generations done. False
   * (nothing written) when another worker got there first or the run was canceled. The caller
   * marks the run done after storing the last generation's rollouts.
   */
  recordCurriculumGeneration(
    runId: string,
    generation: number,
    stats: unknown,
    checkpoint: unknown,
  ): Promise<boolean>;
}

const ID_PATTERN = /^[1-9]\d{0,18}$/;
const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC}) AS ${column.replace(/^r\./, '')}`;
const COLUMNS = `r.id::text AS id, r.dataset, r.settings, r.status, r.generations_total,
  r.generations_done, r.rollouts_dataset, r.error, ${iso('r.created_at')}, ${iso('r.updated_at')},
  ${iso('r.finished_at')}`;
const FINISHED: readonly CurriculumRunStatus[] = ['done', 'failed', 'canceled'];
const STATUSES: readonly CurriculumRunStatus[] = ['queued', 'running', ...FINISHED];

function runOf(row: Row): CurriculumRunRecord {
  return {
    id: textColumn(row, 'id'),
    dataset: textColumn(row, 'dataset'),
    settings: jsonColumn(row, 'settings'),
    status: oneOfColumn(row, 'status', STATUSES, 'curriculum run status'),
    generationsTotal: intColumn(row, 'generations_total'),
    generationsDone: intColumn(row, 'generations_done'),
    rolloutsDataset: textColumn(row, 'rollouts_dataset'),
    error: nullableTextColumn(row, 'error'),
    createdAt: textColumn(row, 'created_at'),
    updatedAt: textColumn(row, 'updated_at'),
    finishedAt: nullableTextColumn(row, 'finished_at'),
  };
}

async function runById(db: Queryable, runId: string): Promise<CurriculumRunRecord | null> {
  if (!ID_PATTERN.test(runId)) return null;
  const [row] = await db.query(`SELECT ${COLUMNS} FROM curriculum_runs r WHERE r.id = $1::bigint`, [
    runId,
  ]);
  return row === undefined ? null : runOf(row);
}

export function createCurriculumStore(executor: SqlExecutor): CurriculumStore {
  return {
    async createCurriculumRun(run) {
      if (!Number.isInteger(run.generations) || run.generations < 1)
        throw new Error('a curriculum run needs at least one generation');
      return executor.transaction(async (tx) => {
        const [inserted] = await tx.query(
          `INSERT INTO curriculum_runs (dataset, settings, generations_total, rollouts_dataset)
           VALUES ($1, $2::jsonb, $3, '') RETURNING id::text AS id`,
          [run.dataset, toJsonPayload(run.settings), run.generations],
        );
        if (inserted === undefined) throw new Error('curriculum run insert returned no row');
        const id = textColumn(inserted, 'id');
        // Named after the id, which exists only once the row does.
        await tx.query('UPDATE curriculum_runs SET rollouts_dataset = $2 WHERE id = $1::bigint', [
          id,
          `curriculum-${id}-rollouts`,
        ]);
        const created = await runById(tx, id);
        if (created === null) throw new Error(`curriculum run ${id} vanished`);
        return created;
      });
    },

    getCurriculumRun: (runId) => runById(executor, runId),

    async listCurriculumRuns() {
      const rows = await executor.query(
        `SELECT ${COLUMNS} FROM curriculum_runs r ORDER BY r.id DESC`,
      );
      return rows.map(runOf);
    },

    async getCurriculumCheckpoint(runId) {
      if (!ID_PATTERN.test(runId)) return null;
      const [row] = await executor.query(
        'SELECT checkpoint FROM curriculum_runs WHERE id = $1::bigint',
        [runId],
      );
      return row === undefined ? null : (jsonColumn(row, 'checkpoint') ?? null);
    },

    async listCurriculumGenerations(runId) {
      if (!ID_PATTERN.test(runId)) return [];
      const rows = await executor.query(
        `SELECT generation, stats FROM curriculum_generations
         WHERE run_id = $1::bigint ORDER BY generation`,
        [runId],
      );
      return rows.map((row) => ({
        generation: intColumn(row, 'generation'),
        stats: jsonColumn(row, 'stats'),
      }));
    },

    async setCurriculumRunStatus(runId, status, error = null, onlyFrom) {
      if (!ID_PATTERN.test(runId)) return false;
      const rows = await executor.query(
        `UPDATE curriculum_runs SET status = $2, error = $3, updated_at = now(),
           finished_at = CASE WHEN $2 IN ('done', 'failed', 'canceled') THEN now() ELSE NULL END
         WHERE id = $1::bigint AND ($4::text[] IS NULL OR status = ANY ($4::text[]))
         RETURNING id`,
        [runId, status, error, onlyFrom === undefined ? null : [...onlyFrom]],
      );
      return rows.length > 0;
    },

    async recordCurriculumGeneration(runId, generation, stats, checkpoint) {
      if (!ID_PATTERN.test(runId)) return false;
      return executor.transaction(async (tx) => {
        const moved = await tx.query(
          `UPDATE curriculum_runs SET generations_done = $2, checkpoint = $3::jsonb,
             updated_at = now()
           WHERE id = $1::bigint AND status = 'running' AND generations_done = $2 - 1
           RETURNING id`,
          [runId, generation, toJsonPayload(checkpoint)],
        );
        if (moved.length === 0) return false;
        await tx.query(
          `INSERT INTO curriculum_generations (run_id, generation, stats)
           VALUES ($1::bigint, $2, $3::jsonb)`,
          [runId, generation, toJsonPayload(stats)],
        );
        return true;
      });
    },
  };
}
