import {
  BenchManifest,
  BenchRun,
  BenchRunMode,
  BenchRunStatus,
  BenchSplit,
  ItemScore,
  JsonValue,
  JudgeConfig,
  Observation,
  PromptFiles,
  RunPrompts,
  ScoreSource,
  SimSpec,
  type RunPrediction,
  addUnitUsage,
  NO_USAGE,
  type RunUsage,
  type UnitUsage,
} from '@terrarium/schema';
import { AggregateChanges, unitFacts, unitKey } from './run-aggregates';
import { createBenchContexts } from './bench-contexts';
import { createBenchPages, type BenchPages } from './bench-pages';
import type { Queryable, Row, SqlExecutor } from './executor';
import { StatementChunks } from './import-batch';
import { toJsonPayload } from './json-payload';
import { BENCH_TABLES, RUN_TABLES, vacuumAfterDelete } from './vacuum';
import {
  intColumn,
  jsonColumn,
  nullableNumberColumn,
  nullableTextColumn,
  textColumn,
  ISO_UTC,
} from './row';
import type {
  BenchItemPage,
  BenchRef,
  JobDb,
  NewBenchManifest,
  NewBenchRun,
  Page,
  PredictionFilter,
  RecordedUnit,
  ScoreFilter,
  Store,
  StoredBench,
} from './store';

/** The part of the store that benches and bench runs add (see store.ts for the contracts). */
export type BenchStore = Pick<
  Store,
  | 'createBench'
  | 'listBenches'
  | 'getBench'
  | 'deleteBench'
  | 'getBenchItems'
  | 'getBenchItemsByIds'
  | 'benchItemTasks'
  | 'countBenchItems'
  | 'createBenchRun'
  | 'getBenchRun'
  | 'getBenchRunPromptFiles'
  | 'listBenchRuns'
  | 'setBenchRunStatus'
  | 'deleteBenchRun'
  | 'retryFailedUnits'
  | 'recordPrediction'
  | 'completeBenchRunIfDrained'
  | 'pendingWork'
  | 'listPredictions'
  | 'runFailures'
  | 'runJudgeGaps'
  | 'pairsNotAsked'
  | 'judgeSides'
  | 'listScores'
  | 'addScores'
  | 'recordPredictions'
  | 'jobDb'
> &
  BenchPages;

// Serialises version numbering of one bench name across processes (any constant works).
const BENCH_NAME_LOCK_NAMESPACE = 7_362_043;
const MAX_PAGE = 1000;
const ID_PATTERN = /^[1-9][0-9]{0,17}$/;
const TERMINAL: readonly BenchRunStatus[] = ['done', 'failed', 'canceled'];

const RUN_COLUMNS = `r.id::text AS id, b.name AS bench, b.version AS bench_version, r.sims, r.judge,
  r.mode, r.split, r.status, to_char(r.created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS created_at,
  to_char(r.finished_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS finished_at, r.total, r.done, r.failed,
  r.input_tokens::float8 AS input_tokens, r.output_tokens::float8 AS output_tokens, r.cost_usd,
  r.unpriced_units, r.judge_input_tokens::float8 AS judge_input_tokens,
  r.judge_output_tokens::float8 AS judge_output_tokens, r.judge_cost_usd, r.judge_unpriced_units,
  r.error, (SELECT jsonb_build_object('hash', p.content_hash, 'files', p.file_names)
    FROM bench_run_prompts p WHERE p.run_id = r.id) AS prompts`;

const INSERT_SCORES = (onConflict: string) => `
INSERT INTO run_scores (run_id, item_id, sim, source, metric, value, detail)
SELECT $1::bigint, x.item_id, x.sim, x.source, x.metric, x.value, x.detail
FROM json_to_recordset($2::json) AS x(
  item_id text, sim text, source text, metric text, value double precision, detail jsonb)
${onConflict}`;

function pageBounds(page: { offset: number; limit: number }): { offset: number; limit: number } {
  return {
    offset: Math.max(0, Math.trunc(page.offset)),
    limit: Math.min(MAX_PAGE, Math.max(0, Math.trunc(page.limit))),
  };
}

function benchFromRow(row: Row): StoredBench {
  return {
    id: textColumn(row, 'id'),
    manifest: BenchManifest.parse(jsonColumn(row, 'manifest')),
  };
}

function runFromRow(row: Row): BenchRun {
  return {
    id: textColumn(row, 'id'),
    bench: textColumn(row, 'bench'),
    benchVersion: intColumn(row, 'bench_version'),
    sims: SimSpec.array().parse(jsonColumn(row, 'sims')),
    judge: JudgeConfig.nullable().parse(jsonColumn(row, 'judge')),
    mode: BenchRunMode.parse(jsonColumn(row, 'mode')),
    split: BenchSplit.parse(textColumn(row, 'split')),
    status: BenchRunStatus.parse(textColumn(row, 'status')),
    createdAt: textColumn(row, 'created_at'),
    finishedAt: nullableTextColumn(row, 'finished_at'),
    total: intColumn(row, 'total'),
    done: intColumn(row, 'done'),
    failed: intColumn(row, 'failed'),
    usage: usageOf(
      intColumn(row, 'input_tokens'),
      intColumn(row, 'output_tokens'),
      nullableNumberColumn(row, 'cost_usd') ?? 0,
      intColumn(row, 'unpriced_units'),
    ),
    judgeUsage: judgeUsageFromRow(row),
    error: nullableTextColumn(row, 'error'),
    prompts: RunPrompts.nullable().parse(jsonColumn(row, 'prompts') ?? null),
  };
}

/**
 * Usage totals as a run shows them: the cost is unknown while any unit's endpoint had no price or
 * reported no tokens (not $0.00), with what is known of it.
 */
function usageOf(
  inputTokens: number,
  outputTokens: number,
  knownUsd: number,
  unpricedUnits: number,
): RunUsage {
  if (unpricedUnits === 0) return { inputTokens, outputTokens, costUsd: knownUsd };
  return { inputTokens, outputTokens, costUsd: null, unpriced: { units: unpricedUnits, knownUsd } };
}

/** A run's judge totals; null on a judged run made before they were recorded (migration 20). */
function judgeUsageFromRow(row: Row): RunUsage | null {
  const inputTokens = nullableNumberColumn(row, 'judge_input_tokens');
  if (inputTokens === null) return null;
  return usageOf(
    inputTokens,
    nullableNumberColumn(row, 'judge_output_tokens') ?? 0,
    nullableNumberColumn(row, 'judge_cost_usd') ?? 0,
    nullableNumberColumn(row, 'judge_unpriced_units') ?? 0,
  );
}

/** A unit's judge usage, absent when no judge was asked about it. */
function unitJudgeUsage(row: Row): { judgeUsage?: UnitUsage } {
  const inputTokens = nullableNumberColumn(row, 'judge_input_tokens');
  if (inputTokens === null) return {};
  return {
    judgeUsage: {
      inputTokens,
      outputTokens: nullableNumberColumn(row, 'judge_output_tokens') ?? 0,
      costUsd: nullableNumberColumn(row, 'judge_cost_usd'),
    },
  };
}

function predictionFromRow(row: Row): RunPrediction {
  return {
    runId: textColumn(row, 'run_id'),
    itemId: textColumn(row, 'item_id'),
    sim: textColumn(row, 'sim'),
    observation: Observation.nullable().parse(jsonColumn(row, 'observation')),
    reasoning: nullableTextColumn(row, 'reasoning'),
    provenance: JsonValue.parse(jsonColumn(row, 'provenance')),
    latencyMs: nullableNumberColumn(row, 'latency_ms') ?? 0,
    usage: {
      inputTokens: intColumn(row, 'input_tokens'),
      outputTokens: intColumn(row, 'output_tokens'),
      costUsd: nullableNumberColumn(row, 'cost_usd'),
    },
    ...unitJudgeUsage(row),
    error: nullableTextColumn(row, 'error'),
  };
}

function scoreFromRow(row: Row): ItemScore {
  return {
    itemId: textColumn(row, 'item_id'),
    sim: textColumn(row, 'sim'),
    source: ScoreSource.parse(textColumn(row, 'source')),
    metric: textColumn(row, 'metric'),
    value: nullableNumberColumn(row, 'value'),
    detail: JsonValue.nullable().parse(jsonColumn(row, 'detail') ?? null),
  };
}

function scoreRow(score: ItemScore) {
  return {
    item_id: score.itemId,
    sim: score.sim,
    source: score.source,
    metric: score.metric,
    value: score.value,
    detail: score.detail,
  };
}

function scorePayload(scores: readonly ItemScore[]): string {
  return toJsonPayload(scores.map(scoreRow));
}

/** One JSON text per score, for `StatementChunks`. */
function scorePayloadRows(scores: readonly ItemScore[]): string[] {
  return scores.map((score) => toJsonPayload(scoreRow(score)));
}

/** Builds the WHERE conditions shared by prediction and score listings; params from $2. */
function unitConditions(
  runId: string,
  filter: PredictionFilter & Partial<Pick<ScoreFilter, 'source' | 'metric'>>,
): { where: string; params: unknown[] } {
  const params: unknown[] = [runId];
  const conditions = ['run_id = $1::bigint'];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.sim !== undefined) conditions.push(`sim = ${param(filter.sim)}`);
  if (filter.itemIds !== undefined) {
    conditions.push(
      `item_id IN (SELECT jsonb_array_elements_text(${param(JSON.stringify(filter.itemIds))}::jsonb))`,
    );
  }
  if (filter.source !== undefined) conditions.push(`source = ${param(filter.source)}`);
  if (filter.metric !== undefined) conditions.push(`metric = ${param(filter.metric)}`);
  return { where: `WHERE ${conditions.join(' AND ')}`, params };
}

function checkScoresMatch(prediction: RunPrediction, scores: readonly ItemScore[]): void {
  for (const score of scores) {
    if (score.itemId !== prediction.itemId || score.sim !== prediction.sim) {
      throw new Error(
        `score ${score.source}/${score.metric} is for (${score.itemId}, ${score.sim}), not for the prediction (${prediction.itemId}, ${prediction.sim})`,
      );
    }
  }
}

/** The bench id a reference names, or null. */
async function resolveBench(db: Queryable, ref: BenchRef): Promise<string | null> {
  if ('benchId' in ref) return ID_PATTERN.test(ref.benchId) ? ref.benchId : null;
  const [row] =
    ref.version === undefined
      ? await db.query(
          'SELECT id::text AS id FROM benches WHERE name = $1 ORDER BY version DESC LIMIT 1',
          [ref.name],
        )
      : await db.query('SELECT id::text AS id FROM benches WHERE name = $1 AND version = $2', [
          ref.name,
          ref.version,
        ]);
  return row ? textColumn(row, 'id') : null;
}

async function finishIfDrained(db: Queryable, runId: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE bench_runs SET status = 'done', finished_at = now()
     WHERE id = $1::bigint AND status IN ('queued', 'running') AND done + failed >= total
     RETURNING id`,
    [runId],
  );
  return rows.length > 0;
}

const INSERT_PREDICTIONS = `
INSERT INTO run_predictions (run_id, item_id, sim, observation, reasoning, provenance,
  latency_ms, input_tokens, output_tokens, cost_usd, judge_input_tokens, judge_output_tokens,
  judge_cost_usd, error)
SELECT $1::bigint, x.item_id, x.sim, x.observation, x.reasoning,
  -- json_to_recordset turns a JSON null into SQL NULL; the column holds the JSON value null.
  coalesce(x.provenance, 'null'::jsonb), x.latency_ms,
  x.input_tokens, x.output_tokens, x.cost_usd, x.judge_input_tokens, x.judge_output_tokens,
  x.judge_cost_usd, x.error
FROM json_to_recordset($2::json) AS x(item_id text, sim text, observation jsonb, reasoning text,
  provenance jsonb, latency_ms double precision, input_tokens integer, output_tokens integer,
  cost_usd double precision, judge_input_tokens integer, judge_output_tokens integer,
  judge_cost_usd double precision, error text)
ON CONFLICT (run_id, item_id, sim) DO NOTHING
RETURNING item_id, sim, error IS NOT NULL AS failed, input_tokens, output_tokens, cost_usd,
  judge_input_tokens, judge_output_tokens, judge_cost_usd`;

/**
 * Adds judge usage to a run's totals from parameter `$first` on (`usageParameters`). A run
 * whose judge usage was never recorded keeps NULL: a sum with NULL is NULL.
 */
const ADD_JUDGE_USAGE = (first: number) =>
  `judge_input_tokens = judge_input_tokens + $${first}::bigint,
   judge_output_tokens = judge_output_tokens + $${first + 1}::bigint,
   judge_cost_usd = judge_cost_usd + $${first + 2}::float8,
   judge_unpriced_units = judge_unpriced_units + $${first + 3}::int`;

/** A unit's dollars: absent is a local simulator's, free; null is not known. */
function dollarsOf(usage: UnitUsage): number | null {
  return usage.costUsd === undefined ? 0 : usage.costUsd;
}

/**
 * The statements' parameters of usage summed by `addUnitUsage`: tokens, the dollars known and the
 * units whose cost is not (as `bench_runs` keeps them).
 */
function usageParameters(usage: RunUsage): [number, number, number, number] {
  return [
    usage.inputTokens,
    usage.outputTokens,
    usage.costUsd ?? usage.unpriced?.knownUsd ?? 0,
    usage.unpriced?.units ?? 0,
  ];
}

/**
 * Records units of one run in one transaction, with multi-row statements: predictions that are not
 * there yet, the scores of exactly those, the run's counters by what was inserted, and `done` when
 * the last unit lands. One transaction per unit measured 8-16 ms a unit on PGlite; a batch costs
 * about as much as one of them.
 */
async function recordUnits(
  executor: SqlExecutor,
  units: readonly RecordedUnit[],
): Promise<{ recorded: number; failed: number }> {
  const [first] = units;
  if (first === undefined) return { recorded: 0, failed: 0 };
  const runId = first.prediction.runId;
  for (const unit of units) {
    checkScoresMatch(unit.prediction, unit.scores);
    if (unit.prediction.runId !== runId) {
      throw new Error(`a batch records one run's units; got ${runId} and ${unit.prediction.runId}`);
    }
  }
  if (!ID_PATTERN.test(runId)) throw new Error(`no bench run ${runId}`);
  return executor.transaction(async (tx) => {
    const [run] = await tx.query('SELECT sims FROM bench_runs WHERE id = $1::bigint', [runId]);
    if (!run) throw new Error(`no bench run ${runId}`);
    const sims = new Set(SimSpec.array().parse(jsonColumn(run, 'sims')));
    for (const unit of units) {
      if (!sims.has(unit.prediction.sim)) {
        throw new Error(`bench run ${runId} does not run ${unit.prediction.sim}`);
      }
    }
    const predictions = new StatementChunks();
    for (const { prediction } of units) {
      predictions.add(
        toJsonPayload({
          item_id: prediction.itemId,
          sim: prediction.sim,
          observation: prediction.observation,
          reasoning: prediction.reasoning,
          provenance: prediction.provenance,
          latency_ms: prediction.latencyMs,
          input_tokens: prediction.usage.inputTokens,
          output_tokens: prediction.usage.outputTokens,
          // Null: not known (json_to_recordset keeps it NULL).
          cost_usd: dollarsOf(prediction.usage),
          // No judge asked: all three NULL. A judge's cost not known: the cost alone NULL.
          judge_input_tokens: prediction.judgeUsage?.inputTokens ?? null,
          judge_output_tokens: prediction.judgeUsage?.outputTokens ?? null,
          judge_cost_usd:
            prediction.judgeUsage === undefined ? null : dollarsOf(prediction.judgeUsage),
          error: prediction.error,
        }),
      );
    }
    const inserted = new Set<string>();
    let failed = 0;
    let simulators = NO_USAGE;
    let judge = NO_USAGE;
    for (const payload of predictions.flush()) {
      for (const row of await tx.query(INSERT_PREDICTIONS, [runId, payload])) {
        inserted.add(unitKey(textColumn(row, 'item_id'), textColumn(row, 'sim')));
        if (row['failed'] === true) failed++;
        simulators = addUnitUsage(simulators, {
          inputTokens: intColumn(row, 'input_tokens'),
          outputTokens: intColumn(row, 'output_tokens'),
          costUsd: nullableNumberColumn(row, 'cost_usd'),
        });
        const judgeTokens = nullableNumberColumn(row, 'judge_input_tokens');
        if (judgeTokens !== null) {
          judge = addUnitUsage(judge, {
            inputTokens: judgeTokens,
            outputTokens: nullableNumberColumn(row, 'judge_output_tokens') ?? 0,
            costUsd: nullableNumberColumn(row, 'judge_cost_usd'),
          });
        }
      }
    }
    if (inserted.size === 0) return { recorded: 0, failed: 0 };
    const scores = units.flatMap((unit) =>
      inserted.has(unitKey(unit.prediction.itemId, unit.prediction.sim)) ? unit.scores : [],
    );
    const scoreChunks = new StatementChunks();
    for (const payload of scorePayloadRows(scores)) scoreChunks.add(payload);
    for (const payload of scoreChunks.flush()) {
      await tx.query(`${INSERT_SCORES('ON CONFLICT DO NOTHING')}`, [runId, payload]);
    }
    // The run's totals and chart slices, by the scores of the units this batch inserted (so none
    // counts twice).
    const facts = await unitFacts(
      tx,
      runId,
      units.flatMap(({ prediction }) =>
        inserted.has(unitKey(prediction.itemId, prediction.sim)) ? [prediction] : [],
      ),
    );
    const changes = new AggregateChanges();
    for (const score of scores) {
      const unit = facts.get(unitKey(score.itemId, score.sim));
      if (unit !== undefined) changes.add(score, unit, 1);
    }
    await changes.apply(tx, runId);
    await tx.query(
      `UPDATE bench_runs SET done = done + $2::int, failed = failed + $3::int,
         input_tokens = input_tokens + $4::bigint, output_tokens = output_tokens + $5::bigint,
         cost_usd = cost_usd + $6::float8, unpriced_units = unpriced_units + $7::int,
         ${ADD_JUDGE_USAGE(8)}, scores_version = scores_version + 1
       WHERE id = $1::bigint`,
      [
        runId,
        inserted.size - failed,
        failed,
        ...usageParameters(simulators),
        ...usageParameters(judge),
      ],
    );
    // In the same transaction and conditional on the status, so that of two workers
    // recording the last units exactly one finishes the run.
    await finishIfDrained(tx, runId);
    return { recorded: inserted.size, failed };
  });
}

export function createBenchStore(executor: SqlExecutor): BenchStore {
  const contexts = createBenchContexts();
  async function runRow(runId: string): Promise<Row | null> {
    if (!ID_PATTERN.test(runId)) return null;
    const [row] = await executor.query(
      `SELECT ${RUN_COLUMNS} FROM bench_runs r JOIN benches b ON b.id = r.bench_id
       WHERE r.id = $1::bigint`,
      [runId],
    );
    return row ?? null;
  }

  const jobDb: JobDb = {
    executeSql: (text, values) => executor.runScript(text, values),
  };

  return {
    async createBench(manifest: NewBenchManifest, items) {
      const name = manifest.name.trim();
      if (name === '') throw new Error('a bench needs a non-empty name');
      if (manifest.itemCount !== items.length) {
        throw new Error(
          `bench ${name}: the manifest counts ${manifest.itemCount} items but ${items.length} were given`,
        );
      }
      const seen = new Set<string>();
      for (const item of items) {
        if (seen.has(item.id)) throw new Error(`bench ${name}: item ${item.id} appears twice`);
        seen.add(item.id);
      }
      const created = await executor.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
          BENCH_NAME_LOCK_NAMESPACE,
          name,
        ]);
        const [versionRow] = await tx.query(
          'SELECT coalesce(max(version), 0)::int + 1 AS version FROM benches WHERE name = $1',
          [name],
        );
        const version = versionRow ? intColumn(versionRow, 'version') : 1;
        const stored = BenchManifest.parse({ ...manifest, name, version });
        const [benchRow] = await tx.query(
          `INSERT INTO benches (name, version, manifest) VALUES ($1, $2, $3::jsonb)
           RETURNING id::text AS id`,
          [name, version, toJsonPayload(stored)],
        );
        if (!benchRow) throw new Error(`bench ${name} v${version} was not stored`);
        const benchId = textColumn(benchRow, 'id');
        await contexts.write(tx, benchId, items);
        // Counted once, from the rows just written, as migration 16 counted older benches.
        await tx.query(
          `INSERT INTO bench_split_tasks (bench_id, split, task, items)
           SELECT bench_id, split, task, count(*)::int FROM bench_items WHERE bench_id = $1::bigint
           GROUP BY bench_id, split, task`,
          [benchId],
        );
        return { id: benchId, manifest: stored };
      });
      // The planner needs statistics of bench_items to join a cell's scores to their items by
      // the (bench, item) key: without them (PGlite runs no autovacuum, and a server's comes
      // later) it scanned a bench's whole split once per score row, and a task cell's page of a
      // 100,000-item run took a minute instead of milliseconds (benchmarks/bench-pages.ts).
      await executor.exec('ANALYZE bench_items');
      return created;
    },

    async listBenches() {
      const rows = await executor.query(
        'SELECT id::text AS id, manifest FROM benches ORDER BY name, version',
      );
      return rows.map(benchFromRow);
    },

    async getBench(name, version) {
      const id = await resolveBench(executor, version === undefined ? { name } : { name, version });
      if (id === null) return null;
      const [row] = await executor.query(
        'SELECT id::text AS id, manifest FROM benches WHERE id = $1::bigint',
        [id],
      );
      return row ? benchFromRow(row) : null;
    },

    async deleteBench(benchId) {
      if (!ID_PATTERN.test(benchId)) return false;
      const rows = await executor.query(
        `DELETE FROM benches b WHERE b.id = $1::bigint
           AND NOT EXISTS (SELECT 1 FROM bench_runs r WHERE r.bench_id = b.id
             AND (r.status IN ('queued', 'running')
               OR EXISTS (SELECT 1 FROM label_queues q WHERE q.run_id = r.id)))
         RETURNING b.id`,
        [benchId],
      );
      if (rows.length > 0) await vacuumAfterDelete(executor, [...BENCH_TABLES, ...RUN_TABLES]);
      return rows.length > 0;
    },

    async getBenchItems(ref, page: BenchItemPage) {
      const benchId = await resolveBench(executor, ref);
      if (benchId === null) return { total: 0, rows: [] };
      const { offset, limit } = pageBounds(page);
      const params: unknown[] = [benchId];
      const split = page.split === undefined ? '' : `AND split = $${params.push(page.split)}`;
      const [countRow] = await executor.query(
        `SELECT count(*)::int AS total FROM bench_items WHERE bench_id = $1::bigint ${split}`,
        params,
      );
      const total = countRow ? intColumn(countRow, 'total') : 0;
      if (limit === 0 || offset >= total) return { total, rows: [] };
      const rows = await executor.query(
        `SELECT item, context_no FROM bench_items WHERE bench_id = $1::bigint ${split}
         ORDER BY ${page.order === 'id' ? 'item_id' : 'ordinal'} LIMIT ${limit} OFFSET ${offset}`,
        params,
      );
      return {
        total,
        rows: (await contexts.withItems(executor, benchId, rows)).map(({ item }) => item),
      };
    },

    async getBenchItemsByIds(ref, itemIds) {
      const benchId = await resolveBench(executor, ref);
      if (benchId === null || itemIds.length === 0) return [];
      const rows = await executor.query(
        `SELECT item, context_no FROM bench_items WHERE bench_id = $1::bigint
           AND item_id IN (SELECT jsonb_array_elements_text($2::jsonb))
         ORDER BY ordinal`,
        [benchId, JSON.stringify(itemIds)],
      );
      return (await contexts.withItems(executor, benchId, rows)).map(({ item }) => item);
    },

    async benchItemTasks(ref) {
      const benchId = await resolveBench(executor, ref);
      if (benchId === null) return new Map();
      const rows = await executor.query(
        'SELECT item_id, task FROM bench_items WHERE bench_id = $1::bigint',
        [benchId],
      );
      return new Map(rows.map((row) => [textColumn(row, 'item_id'), textColumn(row, 'task')]));
    },

    async countBenchItems(ref, split) {
      const benchId = await resolveBench(executor, ref);
      if (benchId === null) return 0;
      const [row] = await executor.query(
        `SELECT count(*)::int AS n FROM bench_items
         WHERE bench_id = $1::bigint AND ($2::text IS NULL OR split = $2::text)`,
        [benchId, split ?? null],
      );
      return row ? intColumn(row, 'n') : 0;
    },

    async createBenchRun(input: NewBenchRun) {
      const sims = SimSpec.array().min(1).parse(input.sims);
      if (new Set(sims).size !== sims.length) {
        throw new Error(`a bench run names each simulator once; got ${sims.join(', ')}`);
      }
      const ref =
        input.benchVersion === undefined
          ? { name: input.bench }
          : { name: input.bench, version: input.benchVersion };
      const id = await executor.transaction(async (tx) => {
        const benchId = await resolveBench(tx, ref);
        if (benchId === null) {
          throw new Error(
            `no bench ${input.bench}${input.benchVersion === undefined ? '' : ` v${input.benchVersion}`}`,
          );
        }
        const [row] = await tx.query(
          `INSERT INTO bench_runs (bench_id, sims, judge, mode, split, status, total)
           SELECT $1::bigint, $2::jsonb, $3::jsonb, $4::jsonb, $5, 'queued',
             count(*)::int * $6::int
           FROM bench_items WHERE bench_id = $1::bigint AND split = $5
           RETURNING id::text AS id`,
          [
            benchId,
            JSON.stringify(sims),
            input.judge === null ? null : JSON.stringify(JudgeConfig.parse(input.judge)),
            JSON.stringify(BenchRunMode.parse(input.mode)),
            BenchSplit.parse(input.split),
            sims.length,
          ],
        );
        if (!row) throw new Error('the bench run was not stored');
        const runId = textColumn(row, 'id');
        if (input.prompts !== undefined && input.prompts !== null) {
          const files = PromptFiles.parse(input.prompts.files);
          await tx.query(
            `INSERT INTO bench_run_prompts (run_id, content_hash, file_names, files)
             VALUES ($1::bigint, $2, $3::jsonb, $4::jsonb)`,
            [
              runId,
              input.prompts.hash,
              JSON.stringify(Object.keys(files).toSorted()),
              JSON.stringify(files),
            ],
          );
        }
        return runId;
      });
      const row = await runRow(id);
      if (!row) throw new Error(`bench run ${id} vanished after it was created`);
      return runFromRow(row);
    },

    async getBenchRun(runId) {
      const row = await runRow(runId);
      return row ? runFromRow(row) : null;
    },

    async getBenchRunPromptFiles(runId) {
      if (!ID_PATTERN.test(runId)) return null;
      const [row] = await executor.query(
        'SELECT files FROM bench_run_prompts WHERE run_id = $1::bigint',
        [runId],
      );
      return row ? PromptFiles.parse(jsonColumn(row, 'files')) : null;
    },

    async listBenchRuns(benchName) {
      const rows = await executor.query(
        `SELECT ${RUN_COLUMNS} FROM bench_runs r JOIN benches b ON b.id = r.bench_id
         WHERE $1::text IS NULL OR b.name = $1::text ORDER BY r.id DESC`,
        [benchName ?? null],
      );
      return rows.map(runFromRow);
    },

    async setBenchRunStatus(runId, status, error, onlyFrom) {
      if (!ID_PATTERN.test(runId)) return false;
      const terminal = TERMINAL.includes(status);
      const rows = await executor.query(
        `UPDATE bench_runs SET status = $2, error = coalesce($3, error),
           finished_at = CASE WHEN $4::boolean THEN now() ELSE NULL END
         WHERE id = $1::bigint
           AND ($5::jsonb IS NULL OR to_jsonb(status) <@ $5::jsonb)
         RETURNING id`,
        [
          runId,
          BenchRunStatus.parse(status),
          error ?? null,
          terminal,
          onlyFrom === undefined ? null : JSON.stringify(onlyFrom),
        ],
      );
      return rows.length > 0;
    },

    async deleteBenchRun(runId) {
      if (!ID_PATTERN.test(runId)) return false;
      const rows = await executor.query(
        `DELETE FROM bench_runs r WHERE r.id = $1::bigint
           AND r.status NOT IN ('queued', 'running')
           AND NOT EXISTS (SELECT 1 FROM label_queues q WHERE q.run_id = r.id)
         RETURNING r.id`,
        [runId],
      );
      if (rows.length > 0) await vacuumAfterDelete(executor, RUN_TABLES);
      return rows.length > 0;
    },

    async retryFailedUnits(runId) {
      if (!ID_PATTERN.test(runId)) return null;
      return executor.transaction(async (tx) => {
        const [run] = await tx.query(
          `SELECT r.id FROM bench_runs r WHERE r.id = $1::bigint
             AND r.status IN ('done', 'failed', 'canceled')
             AND NOT EXISTS (SELECT 1 FROM label_queues q WHERE q.run_id = r.id)
           FOR UPDATE`,
          [runId],
        );
        if (run === undefined) return null;
        // A failed unit was recorded without scores, so the run's aggregates need no change.
        const forgotten = await tx.query(
          `DELETE FROM run_predictions WHERE run_id = $1::bigint AND error IS NOT NULL
           RETURNING item_id`,
          [runId],
        );
        if (forgotten.length === 0) return 0;
        await tx.query(
          `UPDATE bench_runs SET status = 'queued', failed = failed - $2::int, error = NULL,
             finished_at = NULL, scores_version = scores_version + 1
           WHERE id = $1::bigint`,
          [runId, forgotten.length],
        );
        return forgotten.length;
      });
    },

    async recordPrediction(prediction, scores) {
      const { recorded } = await recordUnits(executor, [{ prediction, scores }]);
      return recorded > 0;
    },

    async recordPredictions(units) {
      return recordUnits(executor, units);
    },

    async completeBenchRunIfDrained(runId) {
      if (!ID_PATTERN.test(runId)) return false;
      return finishIfDrained(executor, runId);
    },

    async pendingWork(runId, sim, limit) {
      if (!ID_PATTERN.test(runId)) return [];
      const rows = await executor.query(
        `SELECT i.item_id FROM bench_runs r
         JOIN bench_items i ON i.bench_id = r.bench_id AND i.split = r.split
         WHERE r.id = $1::bigint AND r.sims @> to_jsonb($2::text)
           AND NOT EXISTS (SELECT 1 FROM run_predictions p
             WHERE p.run_id = r.id AND p.item_id = i.item_id AND p.sim = $2::text)
         ORDER BY i.ordinal LIMIT $3::int`,
        [runId, sim, Math.max(0, Math.trunc(limit))],
      );
      return rows.map((row) => textColumn(row, 'item_id'));
    },

    async listPredictions(runId, filter) {
      if (!ID_PATTERN.test(runId)) return { total: 0, rows: [] };
      // The seed is written into the statement (an integer's digits): the count beside the page
      // shares the filter's parameters, and the order is not one of them.
      const seed = filter.shuffle;
      const order =
        seed === undefined
          ? 'sim, item_id'
          : `md5('${Number.isSafeInteger(seed) ? seed : 0}' || item_id), sim, item_id`;
      return pageOf(
        executor,
        'run_predictions',
        unitConditions(runId, filter),
        `run_id::text AS run_id, item_id, sim, observation, reasoning, provenance, latency_ms,
         input_tokens, output_tokens, cost_usd, judge_input_tokens, judge_output_tokens,
         judge_cost_usd, error`,
        order,
        filter,
        predictionFromRow,
      );
    },

    async runJudgeGaps(runId) {
      if (!ID_PATTERN.test(runId)) return [];
      // A verdict that parsed nowhere leaves the metric null with the parse errors (score mode:
      // {error, answer} objects) or the raw answers (turing mode) under `unparsed`. A request
      // that failed is kept as its answer, `(judge request failed: …)`: that says more than the
      // parse error it then gave.
      const rows = await executor.query(
        `SELECT sim, metric, count(*) FILTER (WHERE value IS NULL)::int AS unreadable,
           count(*)::int AS asked,
           (array_agg(CASE
              WHEN detail->'unparsed'->0->>'answer' LIKE '(judge request failed:%'
                THEN detail->'unparsed'->0->>'answer'
              WHEN detail->'unparsed'->>0 LIKE '(judge request failed:%'
                THEN detail->'unparsed'->>0
              ELSE coalesce(detail->'unparsed'->0->>'error',
                'no verdict named in: ' || left(detail->'unparsed'->>0, 200)) END
              ORDER BY item_id) FILTER (WHERE value IS NULL))[1] AS example
         FROM run_scores WHERE run_id = $1::bigint AND source = 'judge'
           AND (metric IN ('overall', 'turing-fooled') OR metric LIKE 'pairwise:%')
         GROUP BY sim, metric HAVING count(*) FILTER (WHERE value IS NULL) > 0
         ORDER BY sim, metric`,
        [runId],
      );
      return rows.map((row) => ({
        sim: textColumn(row, 'sim'),
        metric: textColumn(row, 'metric'),
        unreadable: intColumn(row, 'unreadable'),
        asked: intColumn(row, 'asked'),
        example: nullableTextColumn(row, 'example') ?? 'no answer kept',
      }));
    },

    async pairsNotAsked(runId, first, others) {
      if (!ID_PATTERN.test(runId) || others.length === 0) return 0;
      const [row] = await executor.query(
        `SELECT count(*)::int AS pairs
         FROM run_predictions a
         JOIN run_predictions b ON b.run_id = a.run_id AND b.item_id = a.item_id
           AND b.sim = ANY($3::text[]) AND b.observation IS NOT NULL
         WHERE a.run_id = $1::bigint AND a.sim = $2 AND a.observation IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM run_scores s WHERE s.run_id = a.run_id
             AND s.item_id = a.item_id AND s.sim = a.sim AND s.source = 'judge'
             AND s.metric = 'pairwise:' || b.sim)`,
        [runId, first, [...others]],
      );
      return row === undefined ? 0 : intColumn(row, 'pairs');
    },

    async judgeSides(runId, mode, subject) {
      const sides = { mode, subject, judgings: 0, subjectAsA: 0, a: 0, b: 0, tie: 0, unparsed: 0 };
      if (!ID_PATTERN.test(runId)) return sides;
      // A Turing verdict's detail says, judging by judging, where the real observation was (one
      // side for all, before sides were swapped between judgings); a pair's, whose prediction was A.
      const subjectAsA =
        mode === 'turing'
          ? `CASE jsonb_typeof(s.detail->'realIs') WHEN 'array'
               THEN s.detail->'realIs'->>(p.n - 1)::int ELSE s.detail->>'realIs' END = 'A'`
          : `s.detail->'shownAsA'->>(p.n - 1)::int = $2`;
      const which =
        mode === 'turing'
          ? `s.metric = 'turing-fooled' AND s.detail ? 'realIs'`
          : `s.sim = $2 AND s.metric LIKE 'pairwise:%' AND s.detail ? 'shownAsA'`;
      const rows = await executor.query(
        `SELECT p.pick, ${subjectAsA} AS subject_as_a, count(*)::int AS judgings
         FROM run_scores s
         CROSS JOIN LATERAL jsonb_array_elements_text(s.detail->'picks') WITH ORDINALITY AS p(pick, n)
         WHERE s.run_id = $1::bigint AND s.source = 'judge' AND ${which}
         GROUP BY 1, 2`,
        mode === 'turing' ? [runId] : [runId, subject],
      );
      for (const row of rows) {
        const judgings = intColumn(row, 'judgings');
        const pick = textColumn(row, 'pick');
        sides.judgings += judgings;
        if (row['subject_as_a'] === true) sides.subjectAsA += judgings;
        if (pick === 'A') sides.a += judgings;
        else if (pick === 'B') sides.b += judgings;
        else if (pick === 'tie') sides.tie += judgings;
        else sides.unparsed += judgings;
      }
      return sides;
    },

    async runFailures(runId) {
      if (!ID_PATTERN.test(runId)) return [];
      const rows = await executor.query(
        `SELECT sim, count(*)::int AS failed, (array_agg(error ORDER BY item_id))[1] AS example
         FROM run_predictions WHERE run_id = $1::bigint AND error IS NOT NULL
         GROUP BY sim ORDER BY sim`,
        [runId],
      );
      return rows.map((row) => ({
        sim: textColumn(row, 'sim'),
        failed: intColumn(row, 'failed'),
        example: textColumn(row, 'example'),
      }));
    },

    async listScores(runId, filter) {
      if (!ID_PATTERN.test(runId)) return { total: 0, rows: [] };
      return pageOf(
        executor,
        'run_scores',
        unitConditions(runId, filter),
        'item_id, sim, source, metric, value, detail',
        'sim, item_id, source, metric',
        filter,
        scoreFromRow,
      );
    },

    async addScores(runId, scores, judged) {
      if (!ID_PATTERN.test(runId)) throw new Error(`no bench run ${runId}`);
      if (scores.length === 0 && judged === undefined) return 0;
      const parsed = scores.map((score) => ItemScore.parse(score));
      return executor.transaction(async (tx) => {
        // The values being replaced leave the run's aggregates, the new ones enter them.
        const replaced = await tx.query(
          `SELECT s.item_id, s.sim, s.source, s.metric, s.value
           FROM json_to_recordset($2::json) AS x(item_id text, sim text, source text, metric text)
           JOIN run_scores s ON s.run_id = $1::bigint AND s.item_id = x.item_id
             AND s.sim = x.sim AND s.source = x.source AND s.metric = x.metric`,
          [runId, scorePayload(parsed)],
        );
        const rows = await tx.query(
          `${INSERT_SCORES(`ON CONFLICT (run_id, item_id, sim, source, metric)
             DO UPDATE SET value = EXCLUDED.value, detail = EXCLUDED.detail, created_at = now()`)}
           RETURNING metric`,
          [runId, scorePayload(parsed)],
        );
        if (rows.length === 0 && judged === undefined) return 0;
        const facts = await unitFacts(tx, runId, parsed);
        const changes = new AggregateChanges();
        for (const row of replaced) {
          const old = scoreFromRow({ ...row, detail: null });
          const unit = facts.get(unitKey(old.itemId, old.sim));
          if (unit !== undefined) changes.add(old, unit, -1);
        }
        for (const score of parsed) {
          const unit = facts.get(unitKey(score.itemId, score.sim));
          if (unit !== undefined) changes.add(score, unit, 1);
        }
        await changes.apply(tx, runId);
        // A slice left with no score is no axis value any more (a chart would draw it empty).
        await tx.query('DELETE FROM run_score_slices WHERE run_id = $1::bigint AND rows = 0', [
          runId,
        ]);
        // A cached leaderboard of this run no longer holds (bench-pages.ts).
        const spent = judged === undefined ? NO_USAGE : addUnitUsage(NO_USAGE, judged.usage);
        if (judged !== undefined) {
          // On the unit's line too: the results' lines then sum to the run's total.
          await tx.query(
            `UPDATE run_predictions SET
               judge_input_tokens = coalesce(judge_input_tokens, 0) + $4::int,
               judge_output_tokens = coalesce(judge_output_tokens, 0) + $5::int,
               judge_cost_usd = CASE WHEN judge_input_tokens IS NULL THEN $6::float8
                 ELSE judge_cost_usd + $6::float8 END
             WHERE run_id = $1::bigint AND item_id = $2 AND sim = $3`,
            [
              runId,
              judged.itemId,
              judged.sim,
              judged.usage.inputTokens,
              judged.usage.outputTokens,
              dollarsOf(judged.usage),
            ],
          );
        }
        await tx.query(
          `UPDATE bench_runs SET ${ADD_JUDGE_USAGE(2)}, scores_version = scores_version + 1
           WHERE id = $1::bigint`,
          [runId, ...usageParameters(spent)],
        );
        return rows.length;
      });
    },

    jobDb: () => jobDb,
    ...createBenchPages(executor, contexts),
  };
}

async function pageOf<T>(
  executor: SqlExecutor,
  table: string,
  clause: { where: string; params: unknown[] },
  columns: string,
  order: string,
  page: { offset: number; limit: number },
  fromRow: (row: Row) => T,
): Promise<Page<T>> {
  const { offset, limit } = pageBounds(page);
  const [countRow] = await executor.query(
    `SELECT count(*)::int AS total FROM ${table} ${clause.where}`,
    clause.params,
  );
  const total = countRow ? intColumn(countRow, 'total') : 0;
  if (limit === 0 || offset >= total) return { total, rows: [] };
  const rows = await executor.query(
    `SELECT ${columns} FROM ${table} ${clause.where} ORDER BY ${order}
     LIMIT ${limit} OFFSET ${offset}`,
    clause.params,
  );
  return { total, rows: rows.map(fromRow) };
}
