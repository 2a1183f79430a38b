import type { Migration } from './migration';

/**
 * What a run's judge cost: its tokens and dollars per unit (`run_predictions.judge_*`, NULL where
 * no judge was asked) and summed on the run, priced as its simulators are (TERRARIUM_PRICING by
 * the judge's spec; `judge_unpriced_units` counts units whose judge cost is not known).
 *
 * A judged run made before this migration never recorded its judge's calls: its totals stay NULL
 * (not recorded), where 0 would say the judging was free. A run without a judge starts at 0.
 */
export const judgeUsage: Migration = {
  version: 20,
  name: 'judge-usage',
  sql: `
ALTER TABLE run_predictions
  ADD COLUMN judge_input_tokens integer,
  ADD COLUMN judge_output_tokens integer,
  ADD COLUMN judge_cost_usd double precision;
ALTER TABLE bench_runs
  ADD COLUMN judge_input_tokens bigint,
  ADD COLUMN judge_output_tokens bigint,
  ADD COLUMN judge_cost_usd double precision,
  ADD COLUMN judge_unpriced_units integer;
UPDATE bench_runs
SET judge_input_tokens = 0, judge_output_tokens = 0, judge_cost_usd = 0, judge_unpriced_units = 0
WHERE judge IS NULL;
ALTER TABLE bench_runs
  ALTER COLUMN judge_input_tokens SET DEFAULT 0,
  ALTER COLUMN judge_output_tokens SET DEFAULT 0,
  ALTER COLUMN judge_cost_usd SET DEFAULT 0,
  ALTER COLUMN judge_unpriced_units SET DEFAULT 0;
`,
};
