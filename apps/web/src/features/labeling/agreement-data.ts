import type { QueueAgreement } from '@terrarium/api';
import type { Interval } from '@terrarium/labels';
import { plural } from '../../app/format';

/** One bar: a criterion's statistic with its 95% interval (recharts error bars take [−, +]). */
export interface AgreementBar {
  criterion: string;
  value: number | null;
  /** Distances below and above the value, for `ErrorBar`. */
  error: [number, number];
  low: number | null;
  high: number | null;
  /** Why the statistic has no value (e.g. all labels identical), when the report says. */
  undefinedReason: string | null;
}

function bar(
  criterion: string,
  interval: Interval | undefined,
  value: number | null,
  undefinedReason: string | null = null,
): AgreementBar {
  const low = interval?.low ?? null;
  const high = interval?.high ?? null;
  return {
    criterion,
    value,
    low,
    high,
    undefinedReason,
    error:
      value === null || low === null || high === null
        ? [0, 0]
        : [Math.max(0, value - low), Math.max(0, high - value)],
  };
}

/** Krippendorff's α (ordinal: the scales are ordered points) per criterion, between labelers. */
export function alphaBars(agreement: QueueAgreement): AgreementBar[] {
  // In the rubric's order, as "Human vs rules" lists them (the report keys them alphabetically).
  const rank = (criterion: string) => {
    const at = agreement.criteria.indexOf(criterion);
    return at < 0 ? agreement.criteria.length : at;
  };
  return Object.entries(agreement.labelers.byCriterion ?? {})
    .toSorted(([a], [b]) => rank(a) - rank(b))
    .map(([criterion, summary]) =>
      bar(
        criterion,
        summary.intervals?.ordinal,
        summary.krippendorffAlpha.ordinal,
        summary.alphaUndefined ?? null,
      ),
    );
}

/**
 * The lowest and highest per-criterion α (ordinal): what a reader should lead with, since the
 * pooled α counts differences between criteria as agreement and can exceed every criterion's own.
 */
export function alphaRange(agreement: QueueAgreement): { low: number; high: number } | null {
  const values = alphaBars(agreement)
    .map((entry) => entry.value)
    .filter((value): value is number => value !== null);
  return values.length === 0 ? null : { low: Math.min(...values), high: Math.max(...values) };
}

/** Spearman's ρ of the human consensus against a machine source, per criterion. */
export function spearmanBars(comparisons: QueueAgreement['humanVsJudge']): AgreementBar[] {
  return Object.entries(comparisons).map(([criterion, comparison]) =>
    bar(criterion, comparison.spearmanInterval, comparison.spearman),
  );
}

export interface AgreementDelta {
  criterion: string;
  before: number | null;
  after: number | null;
  delta: number | null;
  beforeInterval: [number | null, number | null];
  afterInterval: [number | null, number | null];
}

/** Per criterion, how Spearman's ρ of humans vs judge moved between two judge versions. */
export function judgeDeltas(before: QueueAgreement, after: QueueAgreement): AgreementDelta[] {
  const criteria = [
    ...new Set([...Object.keys(before.humanVsJudge), ...Object.keys(after.humanVsJudge)]),
  ];
  return criteria.map((criterion) => {
    const a = before.humanVsJudge[criterion];
    const b = after.humanVsJudge[criterion];
    const x = a?.spearman ?? null;
    const y = b?.spearman ?? null;
    return {
      criterion,
      before: x,
      after: y,
      delta: x === null || y === null ? null : y - x,
      beforeInterval: [a?.spearmanInterval.low ?? null, a?.spearmanInterval.high ?? null],
      afterInterval: [b?.spearmanInterval.low ?? null, b?.spearmanInterval.high ?? null],
    };
  });
}

/**
 * The queue's criteria that no judge version scored: labels and judge scores pair by criterion
 * id, so such a criterion has no row in the before → after table, and is named instead.
 */
export function criteriaNotCompared(
  criteria: readonly string[],
  deltas: readonly Pick<AgreementDelta, 'criterion'>[],
): string[] {
  const compared = new Set(deltas.map((row) => row.criterion));
  return criteria.filter((id) => !compared.has(id));
}

/** A statistic to two decimals; one that rounds to zero reads 0.00 whatever its sign. */
export function formatStat(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const text = value.toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}

/** A chart tooltip's value as the tables beside the chart print it. */
export function formatChartValue(value: unknown): string {
  return typeof value === 'number' ? formatStat(value) : String(value);
}

/**
 * A statistic's 95% bootstrap interval beside it, so that a κ of 1.00 on three items does not read
 * like one on three hundred; "no interval" when too few resamples gave a value.
 */
export function formatInterval(
  interval: { low: number | null; high: number | null } | undefined,
): string {
  return interval === undefined || interval.low === null || interval.high === null
    ? 'no interval'
    : `[${formatStat(interval.low)}, ${formatStat(interval.high)}]`;
}

/**
 * How the pooled interval was drawn, e.g. "95% bootstrap, 1,000 resamples of the items": the CLI
 * on this queue's export (`labels agreement FILE --bootstrap`) draws the same, so a reader can
 * reproduce the figure, and one who asks for another count knows why its bounds differ.
 */
export function resamplingNote(interval: Pick<Interval, 'resamples'> | undefined): string {
  return interval === undefined
    ? '95% bootstrap'
    : `95% bootstrap, ${plural(interval.resamples, 'resample')} of the items`;
}

/** What `labels.importJsonl` answers, as far as the page tells it. */
export interface ImportCounts {
  added: number;
  replaced: number;
  unchanged: number;
  adjudicated: number;
  adjudicationsUnchanged: number;
  unknownItems: readonly string[];
  errors: readonly { line: number; reason: string }[];
}

/**
 * One line on what an import did: labels new, replaced and unchanged (an export read back in is
 * all unchanged), settled values likewise, items not in the queue, and the first refused line.
 */
export function importSummary(counts: ImportCounts): string {
  const read = counts.added + counts.replaced + counts.unchanged;
  const parts = [
    `Read ${plural(read, 'label')}: ${counts.added} new, ${counts.replaced} replaced, ${counts.unchanged} unchanged`,
  ];
  const settled = counts.adjudicated + counts.adjudicationsUnchanged;
  if (settled > 0) {
    parts.push(
      `${plural(settled, 'settled value')}: ${counts.adjudicated} new, ${counts.adjudicationsUnchanged} unchanged`,
    );
  }
  const unknown = counts.unknownItems.length;
  if (unknown > 0) {
    parts.push(`${plural(unknown, 'item')} ${unknown === 1 ? 'is' : 'are'} not in this queue`);
  }
  const [first] = counts.errors;
  if (first !== undefined) {
    parts.push(
      `${plural(counts.errors.length, 'bad line')} (first: line ${first.line}: ${first.reason})`,
    );
  }
  return parts.join('; ');
}
