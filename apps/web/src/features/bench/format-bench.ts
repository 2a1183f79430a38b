import {
  addRunUsage,
  costText,
  formatUsd,
  tokensText,
  usageText,
  type BenchRun,
  type BenchRunMode,
  type JudgeConfig,
  type LeaderboardCell,
  type RunPrompts,
  type Sampling,
} from '@terrarium/schema';
import { formatDelta } from '../../app/format';

/** Half the width of the 95% interval (`±2.5`), or null when there is none. */
export function formatHalfWidth(cell: Pick<LeaderboardCell, 'ciLow' | 'ciHigh'>): string | null {
  if (cell.ciLow === null || cell.ciHigh === null) return null;
  return `±${((cell.ciHigh - cell.ciLow) / 2).toFixed(1)}`;
}

/** Whether a value other than 0 prints as 0 with `decimals` decimals, losing its sign. */
function printsAsZero(value: number, decimals: number): boolean {
  return value !== 0 && Number(value.toFixed(decimals)) === 0;
}

/** The most decimals a bound of a difference's interval gets before it is said in words. */
const MAX_BOUND_DECIMALS = 3;

/**
 * The 95% interval of a difference of 0-100 scores, `[−1.2, +3.4]`: one decimal, as every score,
 * unless a bound other than 0 would print as `0.0`. Its sign is what says whether the interval
 * excludes 0 (significant) or not, so both bounds then get more decimals, up to 3, until it shows
 * (`[−0.34, −0.02]`, where one decimal read `[−0.3, 0.0]`); a bound nearer 0 still reads
 * `just above 0` or `just below 0`.
 */
export function formatDeltaInterval(low: number, high: number): string {
  let decimals = 1;
  while (
    decimals < MAX_BOUND_DECIMALS &&
    (printsAsZero(low, decimals) || printsAsZero(high, decimals))
  )
    decimals += 1;
  const bound = (value: number) =>
    printsAsZero(value, decimals)
      ? value > 0
        ? 'just above 0'
        : 'just below 0'
      : formatDelta(value, decimals);
  return `[${bound(low)}, ${bound(high)}]`;
}

/** The CLI spelling of a sampling rule, which the build form also accepts. */
export function samplingLabel(sampling: Sampling): string {
  return sampling.kind === 'random' ? `random:${sampling.count}` : sampling.kind;
}

export function modeLabel(mode: BenchRunMode): string {
  return mode.kind === 'open' ? 'open loop' : `closed loop, ${mode.steps} steps`;
}

/** The prompt folder a run speaks with: its hash's first 12 digits and file count, or the default. */
export function promptsLabel(prompts: RunPrompts | null): string {
  if (prompts === null) return 'Terrarium prompts';
  const count = prompts.files.length;
  return `prompt folder ${prompts.hash.slice(0, 12)} (${count} ${count === 1 ? 'file' : 'files'})`;
}

/**
 * What a run's model calls cost: its simulators', then its judge's when it has one (a judged run
 * made before judge calls were recorded says so rather than showing them as free).
 */
export function runUsageText(run: Pick<BenchRun, 'usage' | 'judge' | 'judgeUsage'>): string {
  const simulators = `${tokensText(run.usage)} simulator tokens · ${costText(run.usage)}`;
  if (run.judge === null) return simulators;
  if (run.judgeUsage === null) return `${simulators} · the judge’s calls were not recorded`;
  return `${simulators} · judge ${usageText(run.judgeUsage, 'judging')}`;
}

/**
 * What a run cost in all, its simulators' and its judge's calls together, as the Benches list
 * shows it beside each run (the run page splits it: `runUsageText`).
 */
export function runCostText(run: Pick<BenchRun, 'usage' | 'judge' | 'judgeUsage'>): string {
  if (run.judge !== null && run.judgeUsage === null) {
    return `${costText(run.usage)} (judge not recorded)`;
  }
  // A run without a judge whose judge usage is all zeros (written with the run) has no judge
  // cost to show: "judge $0.00" beside a run that had none read as if it had (walk 44).
  const unjudged =
    run.judge === null &&
    run.judgeUsage !== null &&
    run.judgeUsage.inputTokens + run.judgeUsage.outputTokens === 0 &&
    run.judgeUsage.costUsd === 0;
  if (run.judgeUsage === null || unjudged) return costText(run.usage);
  const total = addRunUsage(run.usage, run.judgeUsage);
  if (total.costUsd !== null) return formatUsd(total.costUsd);
  // Not all of it is known: each side in its own words, as the run page says them (a sum would
  // read as "at least", which is kept for replies that reported no tokens).
  return `simulators ${costText(run.usage)} · judge ${costText(run.judgeUsage, 'judging')}`;
}

/** A judge as its run was started with it: endpoint, mode, judgings per item and temperature. */
export function judgeLabel(judge: JudgeConfig): string {
  return `${judge.spec} · ${judge.mode} · k=${judge.repeats} · temperature ${judge.temperature}`;
}

/** Share of the work units finished (done or failed), 0-1; 0 for an empty run. */
export function progressShare(run: { done: number; failed: number; total: number }): number {
  return run.total === 0 ? 0 : Math.min(1, (run.done + run.failed) / run.total);
}
