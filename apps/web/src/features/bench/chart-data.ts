import type { ScorePoint } from '@terrarium/schema';

/**
 * Chart rows carry one value per simulator under `s0`, `s1`… rather than under the simulator's
 * spec: Recharts reads a string data key as a property path, and specs hold dots.
 */
export function seriesKey(index: number): string {
  return `s${index}`;
}

export type ChartRow = Record<string, number | string | null>;

export const HISTOGRAM_BINS = 10;

/** Lower edge of the bin holding a 0-100 score; 100 falls in the last bin. */
function binOf(value: number, bins: number): number {
  const width = 100 / bins;
  return Math.min(bins - 1, Math.max(0, Math.floor(value / width)));
}

/** Per simulator, how many items scored in each tenth of 0-100 (missing scores left out). */
export function scoreHistogram(
  points: readonly ScorePoint[],
  sims: readonly string[],
  bins: number = HISTOGRAM_BINS,
): ChartRow[] {
  const width = 100 / bins;
  const rows: ChartRow[] = Array.from({ length: bins }, (_, bin) => {
    const row: ChartRow = {
      bin: `${Math.round(bin * width)}–${Math.round((bin + 1) * width)}`,
    };
    sims.forEach((_sim, index) => (row[seriesKey(index)] = 0));
    return row;
  });
  for (const point of points) {
    const index = sims.indexOf(point.sim);
    const row = rows[point.value === null ? -1 : binOf(point.value, bins)];
    if (index === -1 || point.value === null || !row) continue;
    const key = seriesKey(index);
    const count = row[key];
    row[key] = (typeof count === 'number' ? count : 0) + 1;
  }
  return rows;
}

export const MAX_BUCKETS = 20;

/**
 * Mean score per simulator along `axis` (turn index or history length). Up to 20 distinct values
 * are their own points; beyond that, values are grouped into 20 equal-width buckets named by
 * their lower edge, so a bench of long trajectories still gives a readable line.
 */
export function meanAlong(
  points: readonly ScorePoint[],
  sims: readonly string[],
  axis: 'turnIndex' | 'historyLength',
  maxBuckets: number = MAX_BUCKETS,
): ChartRow[] {
  const scored = points.filter((point) => point.value !== null && sims.includes(point.sim));
  if (scored.length === 0) return [];
  const values = scored.map((point) => point[axis]);
  const max = Math.max(...values);
  const distinct = new Set(values).size;
  const width = distinct <= maxBuckets ? 1 : Math.ceil((max + 1) / maxBuckets);
  const sums = new Map<number, { sum: number[]; count: number[] }>();
  for (const point of scored) {
    const bucket = Math.floor(point[axis] / width) * width;
    const entry = sums.get(bucket) ?? {
      sum: sims.map(() => 0),
      count: sims.map(() => 0),
    };
    const index = sims.indexOf(point.sim);
    entry.sum[index] = (entry.sum[index] ?? 0) + (point.value ?? 0);
    entry.count[index] = (entry.count[index] ?? 0) + 1;
    sums.set(bucket, entry);
  }
  return [...sums.entries()]
    .toSorted(([a], [b]) => a - b)
    .map(([bucket, entry]) => {
      const row: ChartRow = { x: bucket };
      sims.forEach((_sim, index) => {
        const count = entry.count[index] ?? 0;
        row[seriesKey(index)] = count === 0 ? null : (entry.sum[index] ?? 0) / count;
      });
      return row;
    });
}

export type CostAxis = 'tokens' | 'latency';

/** Tokens when any prediction used some (a model endpoint), else latency (local simulators). */
export function defaultCostAxis(points: readonly ScorePoint[]): CostAxis {
  return points.some((point) => point.inputTokens + point.outputTokens > 0) ? 'tokens' : 'latency';
}

export interface CostPoint {
  cost: number;
  score: number;
  itemId: string;
}

/** One scatter series per simulator: cost (tokens in+out, or latency in ms) against score. */
export function costVsScore(
  points: readonly ScorePoint[],
  sims: readonly string[],
  axis: CostAxis,
): CostPoint[][] {
  return sims.map((sim) =>
    points.flatMap((point) =>
      point.sim !== sim || point.value === null
        ? []
        : [
            {
              cost: axis === 'tokens' ? point.inputTokens + point.outputTokens : point.latencyMs,
              score: point.value,
              itemId: point.itemId,
            },
          ],
    ),
  );
}

/** An axis title with its unit, as every chart shows it. */
export interface AxisTitle {
  title: string;
}

export interface LineChartSpec {
  title: string;
  axis: 'turnIndex' | 'historyLength';
  x: AxisTitle;
  y: AxisTitle;
}

export const SCORE_AXIS: AxisTitle = { title: 'Mean score (0–100)' };

/**
 * The score-along charts to draw. History length counts the earlier turns an item shows the
 * simulator; when every item shows its whole history that is its turn index, and a second chart
 * would draw the same curve under another name, so the one chart says both.
 */
export function lineChartSpecs(points: readonly ScorePoint[]): LineChartSpec[] {
  const turn: LineChartSpec = {
    title: 'Score vs turn index',
    axis: 'turnIndex',
    x: { title: 'Turn index (0 = first transition)' },
    y: SCORE_AXIS,
  };
  if (points.every((point) => point.historyLength === point.turnIndex)) {
    return [
      {
        ...turn,
        title: 'Score vs turn index (= history length: each item shows its whole history)',
      },
    ];
  }
  return [
    turn,
    {
      title: 'Score vs history length',
      axis: 'historyLength',
      x: { title: 'History length (earlier turns shown)' },
      y: SCORE_AXIS,
    },
  ];
}

export const ITEM_SCORE_AXIS: AxisTitle = { title: 'Item score (0–100)' };

export const HISTOGRAM_AXES: { x: AxisTitle; y: AxisTitle } = {
  x: { title: 'Item score (0–100), in bins of 10' },
  y: { title: 'Items' },
};

export const COST_AXES: Record<CostAxis, AxisTitle> = {
  tokens: { title: 'Tokens per prediction (input + output)' },
  latency: { title: 'Latency per prediction (ms)' },
};
