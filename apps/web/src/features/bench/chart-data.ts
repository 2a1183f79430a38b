import { gridMean, SCORE_BINS, type ScoreSlice, type ScoreSliceAxis } from '@terrarium/schema';

/**
 * Chart rows carry one value per simulator under `s0`, `s1`… rather than under the simulator's
 * spec: Recharts reads a string data key as a property path, and specs hold dots. A line chart's
 * row also carries each mean's item count under `s0n`, `s1n`… for its tooltip.
 */
export function seriesKey(index: number): string {
  return `s${index}`;
}

/** Where a row keeps the item count behind the mean under `key` (a `seriesKey`). */
export function countKey(key: string): string {
  return `${key}n`;
}

export type ChartRow = Record<string, number | string | null>;

/** The slices of one axis for the charted simulators, with their simulator's index. */
function slicesOn(
  slices: readonly ScoreSlice[],
  sims: readonly string[],
  axis: ScoreSliceAxis,
): { slice: ScoreSlice; index: number }[] {
  return slices.flatMap((slice) => {
    const index = sims.indexOf(slice.sim);
    return slice.axis === axis && index !== -1 ? [{ slice, index }] : [];
  });
}

/** Per simulator, how many items scored in each tenth of 0-100 (missing scores left out). */
export function scoreHistogram(slices: readonly ScoreSlice[], sims: readonly string[]): ChartRow[] {
  const width = 100 / SCORE_BINS;
  const rows: ChartRow[] = Array.from({ length: SCORE_BINS }, (_, bin) => {
    const row: ChartRow = {
      bin: `${Math.round(bin * width)}–${Math.round((bin + 1) * width)}`,
    };
    sims.forEach((_sim, index) => (row[seriesKey(index)] = 0));
    return row;
  });
  for (const { slice, index } of slicesOn(slices, sims, 'bin')) {
    const row = rows[slice.x];
    if (row) row[seriesKey(index)] = slice.n;
  }
  return rows;
}

export const MAX_BUCKETS = 20;

/**
 * Rows of mean score (0-100) per simulator at each x, from the slices of one axis: the grid sums
 * and counts of the slices merged into x's bucket (`bucketOf`), added exactly in any order.
 */
function meanRows(
  entries: readonly { slice: ScoreSlice; index: number }[],
  sims: readonly string[],
  bucketOf: (x: number) => number,
  label: (bucket: number) => number | string,
): ChartRow[] {
  const sums = new Map<number, { units: number[]; count: number[] }>();
  for (const { slice, index } of entries) {
    if (slice.n === 0) continue;
    const bucket = bucketOf(slice.x);
    const entry = sums.get(bucket) ?? { units: sims.map(() => 0), count: sims.map(() => 0) };
    entry.units[index] = (entry.units[index] ?? 0) + slice.gridSum;
    entry.count[index] = (entry.count[index] ?? 0) + slice.n;
    sums.set(bucket, entry);
  }
  return [...sums.entries()]
    .toSorted(([a], [b]) => a - b)
    .map(([bucket, entry]) => {
      const row: ChartRow = { x: label(bucket) };
      sims.forEach((_sim, index) => {
        const count = entry.count[index] ?? 0;
        row[seriesKey(index)] = count === 0 ? null : gridMean(entry.units[index] ?? 0, count) * 100;
        row[countKey(seriesKey(index))] = count;
      });
      return row;
    });
}

export type AlongAxis = 'turn' | 'history';

/** Points along the turn or the history length, and how many values of x each one groups. */
export interface MeanAlong {
  rows: ChartRow[];
  /** 1 when each point is one value; else the width of the buckets, each named by its lower edge. */
  binWidth: number;
}

/**
 * Mean score per simulator along the turn or the history length. Up to 20 distinct values are
 * their own points; beyond that, values are grouped into 20 equal-width buckets named by their
 * lower edge, so a bench of long trajectories still gives a readable line (the width goes with
 * the rows, for the axis to say). Turns are numbered from 1 here, as the drill-down, the item page
 * and the labeler's view number them ("turn 3 / 12"); the slices carry the 0-based index the store
 * keeps.
 */
export function meanAlong(
  slices: readonly ScoreSlice[],
  sims: readonly string[],
  axis: AlongAxis,
  maxBuckets: number = MAX_BUCKETS,
): MeanAlong {
  const entries = slicesOn(slices, sims, axis).filter(({ slice }) => slice.n > 0);
  if (entries.length === 0) return { rows: [], binWidth: 1 };
  const values = entries.map(({ slice }) => slice.x);
  const max = Math.max(...values);
  const distinct = new Set(values).size;
  const width = distinct <= maxBuckets ? 1 : Math.ceil((max + 1) / maxBuckets);
  const rows = meanRows(
    entries,
    sims,
    (x) => Math.floor(x / width) * width,
    (bucket) => (axis === 'turn' ? bucket + 1 : bucket),
  );
  return { rows, binWidth: width };
}

const ALONG_NAMES: Record<AlongAxis, { one: string; many: string; note: string }> = {
  turn: { one: 'Turn', many: 'Turns', note: '1 = first transition' },
  history: { one: 'History length', many: 'History lengths', note: 'earlier turns shown' },
};

/**
 * The x axis title of a chart along the turn or the history length, saying the bins' width when
 * its points are bins (`Turn, in bins of 2 (1 = first transition)`), as the histograms do.
 */
export function alongAxisTitle(axis: AlongAxis, binWidth: number): AxisTitle {
  const { one, note } = ALONG_NAMES[axis];
  return {
    title: binWidth === 1 ? `${one} (${note})` : `${one}, in bins of ${binWidth} (${note})`,
  };
}

/** What a point along the turn or the history length stands for: `Turn 5`, or `Turns 5–6`. */
export function alongPointLabel(axis: AlongAxis, x: number, binWidth: number): string {
  const { one, many } = ALONG_NAMES[axis];
  return binWidth === 1 ? `${one} ${x}` : `${many} ${x}–${x + binWidth - 1}`;
}

export type CostAxis = 'tokens' | 'latency';

/** Whether any prediction used tokens (a model endpoint); local simulators use none. */
export function anyTokensUsed(slices: readonly ScoreSlice[]): boolean {
  return slices.some((slice) => slice.axis === 'tokens' && slice.x > 0);
}

/**
 * Tokens when any prediction used some, else latency: with no tokens used, every item sits in
 * the bucket `0` and a chart by tokens says nothing.
 */
export function defaultCostAxis(slices: readonly ScoreSlice[]): CostAxis {
  return anyTokensUsed(slices) ? 'tokens' : 'latency';
}

/**
 * The label of a cost bucket (a bit length, packages/schema `SCORE_SLICE_AXES`): `0`, `1`, `2–3`,
 * `4–7`… tokens or whole milliseconds (`<1` for under one), each bucket twice the one before.
 */
export function costBucketLabel(x: number, axis: CostAxis): string {
  if (x === 0) return axis === 'latency' ? '<1' : '0';
  if (x === 1) return '1';
  return `${(2 ** (x - 1)).toLocaleString('en-US')}–${(2 ** x - 1).toLocaleString('en-US')}`;
}

/** Mean score per simulator in each cost bucket (tokens or latency, doubling widths). */
export function scoreByCost(
  slices: readonly ScoreSlice[],
  sims: readonly string[],
  axis: CostAxis,
): ChartRow[] {
  return meanRows(
    slicesOn(slices, sims, axis),
    sims,
    (x) => x,
    (x) => costBucketLabel(x, axis),
  );
}

/** An axis title with its unit, as every chart shows it. */
export interface AxisTitle {
  title: string;
}

export interface LineChartSpec {
  title: string;
  axis: AlongAxis;
  x: AxisTitle;
  y: AxisTitle;
  /** The chart's points (`meanAlong`), whose bin width its x title says. */
  along: MeanAlong;
}

export const SCORE_AXIS: AxisTitle = { title: 'Mean score (0–100)' };

/** A score-along chart of the simulators `sims`: its points and the axis title that fits them. */
function alongChart(
  title: string,
  axis: AlongAxis,
  slices: readonly ScoreSlice[],
  sims: readonly string[],
  maxBuckets: number,
): LineChartSpec {
  const along = meanAlong(slices, sims, axis, maxBuckets);
  return { title, axis, x: alongAxisTitle(axis, along.binWidth), y: SCORE_AXIS, along };
}

/**
 * The score-along charts to draw, with their points. History length counts the earlier turns an
 * item shows the simulator; when every item shows its whole history that is its turn less one,
 * and a second chart would draw the same curve shifted by one, so the one chart says so.
 */
export function lineChartSpecs(
  slices: readonly ScoreSlice[],
  sims: readonly string[],
  maxBuckets: number = MAX_BUCKETS,
): LineChartSpec[] {
  const turn = alongChart('Score vs turn', 'turn', slices, sims, maxBuckets);
  if (slices.every((slice) => slice.axis !== 'history-shift' || slice.x === 0)) {
    return [
      {
        ...turn,
        title: 'Score vs turn (each item shows its whole history: the turns before it)',
      },
    ];
  }
  return [turn, alongChart('Score vs history length', 'history', slices, sims, maxBuckets)];
}

export const HISTOGRAM_AXES: { x: AxisTitle; y: AxisTitle } = {
  x: { title: 'Item score (0–100), in bins of 10' },
  y: { title: 'Items' },
};

export const COST_AXES: Record<CostAxis, AxisTitle> = {
  tokens: { title: 'Tokens per prediction (input + output), doubling bins' },
  latency: { title: 'Latency per prediction (ms), doubling bins' },
};
