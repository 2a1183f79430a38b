import {
  scoreGridUnits,
  scoreSliceXs,
  type ItemScore,
  type ScoreFacts,
  type ScoreSliceAxis,
} from '@terrarium/schema';
import type { Queryable } from './executor';
import { toJsonPayload } from './json-payload';
import { intColumn, nullableIntColumn, nullableNumberColumn, textColumn } from './row';

/** Where a score's item sits in the bench, and what its prediction cost. */
export type UnitFacts = ScoreFacts & { task: string };

interface TotalRow {
  sim: string;
  source: string;
  metric: string;
  task: string;
  n: number;
  grid_sum: number;
  nulls: number;
}

interface SliceRow {
  source: string;
  metric: string;
  sim: string;
  axis: ScoreSliceAxis;
  x: number;
  rows: number;
  n: number;
  grid_sum: number;
}

/**
 * Changes to a run's aggregates (migrations 009 and 013): per (sim, source, metric, task) the
 * totals a leaderboard's means are (`run_score_totals`), and per (source, metric, sim, axis, x)
 * the slices its charts draw (`run_score_slices`). Scores are added (+1) when written and taken
 * away (−1) when replaced; grid sums are integers, so both are exact in any order and the tables
 * always equal a count over the stored scores. Counted here rather than by a join in SQL: the
 * writer has each score's facts at hand, and a join per score row cost more than its insert.
 */
export class AggregateChanges {
  private readonly totals = new Map<string, TotalRow>();
  private readonly slices = new Map<string, SliceRow>();

  add(score: ItemScore, facts: UnitFacts, sign: 1 | -1): void {
    const { sim, source, metric } = score;
    const present = score.value === null ? 0 : 1;
    const units = score.value === null ? 0 : scoreGridUnits(score.value);
    // NUL cannot occur in stored text, so it separates the parts unambiguously; JSON.stringify of
    // the parts made this the costliest JS function of the server thread in a replay-only run.
    const totalKey = `${sim}\0${source}\0${metric}\0${facts.task}`;
    let total = this.totals.get(totalKey);
    if (total === undefined) {
      total = { sim, source, metric, task: facts.task, n: 0, grid_sum: 0, nulls: 0 };
      this.totals.set(totalKey, total);
    }
    total.n += sign * present;
    total.grid_sum += sign * units;
    total.nulls += sign * (1 - present);
    for (const [axis, x] of scoreSliceXs(score.value, facts)) {
      const key = `${source}\0${metric}\0${sim}\0${axis}\0${x}`;
      let slice = this.slices.get(key);
      if (slice === undefined) {
        slice = { source, metric, sim, axis, x, rows: 0, n: 0, grid_sum: 0 };
        this.slices.set(key, slice);
      }
      slice.rows += sign;
      slice.n += sign * present;
      slice.grid_sum += sign * units;
    }
  }

  /** Adds the changes to run `runId`'s tables, within the caller's transaction. */
  async apply(tx: Queryable, runId: string): Promise<void> {
    if (this.totals.size > 0) {
      await tx.query(
        `INSERT INTO run_score_totals (run_id, sim, source, metric, task, n, grid_sum, nulls)
         SELECT $1::bigint, x.sim, x.source, x.metric, x.task, x.n, x.grid_sum, x.nulls
         FROM json_to_recordset($2::json) AS x(sim text, source text, metric text, task text,
           n integer, grid_sum double precision, nulls integer)
         ON CONFLICT (run_id, sim, source, metric, task) DO UPDATE
           SET n = run_score_totals.n + EXCLUDED.n,
             grid_sum = run_score_totals.grid_sum + EXCLUDED.grid_sum,
             nulls = run_score_totals.nulls + EXCLUDED.nulls`,
        [runId, toJsonPayload([...this.totals.values()])],
      );
    }
    if (this.slices.size > 0) {
      await tx.query(
        `INSERT INTO run_score_slices (run_id, source, metric, sim, axis, x, rows, n, grid_sum)
         SELECT $1::bigint, x.source, x.metric, x.sim, x.axis, x.x, x.rows, x.n, x.grid_sum
         FROM json_to_recordset($2::json) AS x(source text, metric text, sim text, axis text,
           x integer, rows integer, n integer, grid_sum double precision)
         ON CONFLICT (run_id, source, metric, sim, axis, x) DO UPDATE
           SET rows = run_score_slices.rows + EXCLUDED.rows, n = run_score_slices.n + EXCLUDED.n,
             grid_sum = run_score_slices.grid_sum + EXCLUDED.grid_sum`,
        [runId, toJsonPayload([...this.slices.values()])],
      );
    }
  }
}

/**
 * The facts of the given units of run `runId`: their items' task, turn index and history length
 * (items of the run's split only: a score of another item is counted nowhere, as the leaderboard
 * leaves it out) and their predictions' tokens and latency where there is one.
 */
export async function unitFacts(
  tx: Queryable,
  runId: string,
  units: readonly { itemId: string; sim: string }[],
): Promise<Map<string, UnitFacts>> {
  if (units.length === 0) return new Map();
  const rows = await tx.query(
    `SELECT u.item_id, u.sim, i.task, i.turn_index, i.history_length,
       p.input_tokens + p.output_tokens AS tokens, p.latency_ms::float8 AS latency_ms
     FROM json_to_recordset($2::json) AS u(item_id text, sim text)
     JOIN bench_runs r ON r.id = $1::bigint
     JOIN bench_items i ON i.bench_id = r.bench_id AND i.item_id = u.item_id AND i.split = r.split
     LEFT JOIN run_predictions p ON p.run_id = r.id AND p.item_id = u.item_id AND p.sim = u.sim`,
    [runId, toJsonPayload(units.map((unit) => ({ item_id: unit.itemId, sim: unit.sim })))],
  );
  const facts = new Map<string, UnitFacts>();
  for (const row of rows) {
    facts.set(unitKey(textColumn(row, 'item_id'), textColumn(row, 'sim')), {
      task: textColumn(row, 'task'),
      turnIndex: intColumn(row, 'turn_index'),
      historyLength: intColumn(row, 'history_length'),
      tokens: nullableIntColumn(row, 'tokens'),
      latencyMs: nullableNumberColumn(row, 'latency_ms'),
    });
  }
  return facts;
}

export function unitKey(itemId: string, sim: string): string {
  return `${sim}\u0000${itemId}`;
}
