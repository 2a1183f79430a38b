import type { ScoreSlice } from '@terrarium/schema';
import { useMemo, useState, type ComponentProps, type ReactNode } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type DotItemDotProps,
} from 'recharts';
import {
  alongPointLabel,
  anyTokensUsed,
  COST_AXES,
  countKey,
  defaultCostAxis,
  HISTOGRAM_AXES,
  lineChartSpecs,
  SCORE_AXIS,
  scoreByCost,
  scoreHistogram,
  seriesKey,
  type CostAxis,
  type LineChartSpec,
} from './chart-data';
import { CATEGORY_TICKS, CHART_MARGIN, xAxisTitle, yAxisTitle } from '../../app/chart-axes';
import { formatScore100 } from '../../app/format';

// Six hues far apart, so any two simulators of a run read as two (a teal beside the blue did not).
const SERIES_COLOURS = ['#2458b3', '#b45309', '#15803d', '#b42318', '#7c3aed', '#be185d'];

/**
 * Each simulator's colour, the same in every run's charts: picked from its name (a hash), the next
 * free one on a clash, simulators taken by name so the clash goes the same way every time.
 */
export function simColours(sims: readonly string[]): Map<string, string> {
  const colours = new Map<string, string>();
  const taken = new Set<number>();
  for (const sim of sims.toSorted()) {
    let hash = 0;
    for (const char of sim) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
    let slot = hash % SERIES_COLOURS.length;
    for (let tries = 0; tries < SERIES_COLOURS.length && taken.has(slot); tries++) {
      slot = (slot + 1) % SERIES_COLOURS.length;
    }
    taken.add(slot);
    colours.set(sim, SERIES_COLOURS[slot] ?? '#2458b3');
  }
  return colours;
}

const CHART_HEIGHT = 220;
// Room under the legend: an oracle's line at 100 runs along the plot's top edge.
const LEGEND_STYLE = { paddingBottom: 10 };
const SCORE_DOMAIN: [number, number] = [0, 100];

function ChartPanel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <figure className="panel chart-panel" aria-label={title}>
      <figcaption className="panel-header">
        <h3>{title}</h3>
      </figcaption>
      <div className="panel-body">{children}</div>
    </figure>
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A mean with the number of items behind it, which its row carries beside it (`countKey`). */
function formatMean(value: unknown, _name: unknown, entry: unknown): string {
  const mean = typeof value === 'number' ? formatScore100(value) : String(value);
  const key = isRecord(entry) ? entry['dataKey'] : undefined;
  const row = isRecord(entry) ? entry['payload'] : undefined;
  const count = typeof key === 'string' && isRecord(row) ? row[countKey(key)] : undefined;
  return typeof count === 'number' ? `${mean} (${count.toLocaleString('en-US')} items)` : mean;
}

/** Distribution, score along the turn and the history, and score by cost, per simulator. */
export function ScoreCharts({
  slices,
  sims: runSims,
}: {
  slices: readonly ScoreSlice[];
  sims: readonly string[];
}) {
  const [costAxis, setCostAxis] = useState<CostAxis | null>(null);
  // A simulator with nothing scored (every prediction failed) has no point to draw or to name.
  const sims = useMemo(
    () => runSims.filter((sim) => slices.some((slice) => slice.sim === sim && slice.n > 0)),
    [runSims, slices],
  );
  const colours = useMemo(() => simColours(runSims), [runSims]);
  const tokensUsed = useMemo(() => anyTokensUsed(slices), [slices]);
  const axis = (tokensUsed ? costAxis : null) ?? defaultCostAxis(slices);
  const histogram = useMemo(() => scoreHistogram(slices, sims), [slices, sims]);
  const lines = useMemo(() => lineChartSpecs(slices, sims), [slices, sims]);
  const cost = useMemo(() => scoreByCost(slices, sims, axis), [slices, sims, axis]);

  if (slices.length === 0) return <p className="muted">No scored items yet.</p>;
  return (
    <div className="score-charts" data-testid="score-charts">
      <ChartPanel title="Score distribution">
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <BarChart data={histogram} margin={CHART_MARGIN}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="bin" {...CATEGORY_TICKS} label={xAxisTitle(HISTOGRAM_AXES.x.title)} />
            <YAxis allowDecimals={false} label={yAxisTitle(HISTOGRAM_AXES.y.title)} />
            <Tooltip />
            <Legend verticalAlign="top" wrapperStyle={LEGEND_STYLE} />
            {sims.map((sim, index) => (
              <Bar
                key={sim}
                dataKey={seriesKey(index)}
                name={sim}
                fill={colours.get(sim)}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </ChartPanel>
      {lines.map((spec) => (
        <ScoreLineChart
          key={spec.axis}
          title={spec.title}
          x={spec}
          data={spec.along.rows}
          sims={sims}
          colours={colours}
          // A bucket is named by its lower edge: the tooltip gives its whole range.
          pointLabel={(x) => alongPointLabel(spec.axis, x, spec.along.binWidth)}
        />
      ))}
      <ScoreLineChart
        title={axis === 'tokens' ? 'Score by tokens' : 'Score by latency'}
        x={{ x: COST_AXES[axis], y: SCORE_AXIS, categories: true }}
        data={cost}
        sims={sims}
        colours={colours}
      >
        <div className="segmented" role="group" aria-label="Cost axis">
          <button
            type="button"
            aria-pressed={axis === 'tokens'}
            disabled={!tokensUsed}
            title={
              tokensUsed
                ? undefined
                : 'No prediction of this run used tokens (replay and retrieval answer locally)'
            }
            onClick={() => setCostAxis('tokens')}
          >
            Tokens
          </button>
          <button
            type="button"
            aria-pressed={axis === 'latency'}
            onClick={() => setCostAxis('latency')}
          >
            Latency
          </button>
        </div>
      </ScoreLineChart>
    </div>
  );
}

/** Below this many items a point's mean is drawn faint: a few items make a noisy mean. */
export const FEW_ITEMS = 10;

/** A point's items, read from its row (`countKey` beside the series' mean). */
function itemsAt(payload: unknown, dataKey: unknown): number | null {
  if (typeof dataKey !== 'string' || !isRecord(payload)) return null;
  const count = payload[countKey(dataKey)];
  return typeof count === 'number' ? count : null;
}

/** A point sized by how many items its mean stands on, faint below `FEW_ITEMS`. */
export function CountDot({
  cx,
  cy,
  stroke,
  payload,
  dataKey,
}: {
  cx?: number | undefined;
  cy?: number | undefined;
  stroke?: string | undefined;
  payload: unknown;
  dataKey: unknown;
}) {
  if (cx === undefined || cy === undefined) return null;
  const items = itemsAt(payload, dataKey);
  if (items === null) return null;
  const few = items < FEW_ITEMS;
  return (
    <circle
      cx={cx}
      cy={cy}
      r={Math.min(6, 2 + Math.sqrt(items) / 3)}
      fill={few ? 'none' : stroke}
      stroke={stroke}
      strokeOpacity={few ? 0.5 : 1}
      data-items={items}
    />
  );
}

/** `CountDot` as Recharts calls a line's `dot` (a render function, keyed by the point). */
function countDot(props: DotItemDotProps) {
  return (
    <CountDot
      key={`${String(props.dataKey)}-${props.index}`}
      cx={props.cx}
      cy={props.cy}
      stroke={props.stroke}
      payload={props.payload}
      dataKey={props.dataKey}
    />
  );
}

/**
 * Mean score per simulator against x, one line each: a number (turn, history length) or
 * ordered categories (cost buckets). Each point's size says how many items its mean stands on.
 */
function ScoreLineChart({
  title,
  x,
  data,
  sims,
  colours,
  pointLabel,
  children,
}: {
  title: string;
  x: Pick<LineChartSpec, 'x' | 'y'> & { categories?: boolean };
  data: ComponentProps<typeof LineChart>['data'];
  sims: readonly string[];
  colours: ReadonlyMap<string, string>;
  /** The tooltip's heading for a point at numeric x; the x itself when absent. */
  pointLabel?: (x: number) => string;
  children?: ReactNode;
}) {
  return (
    <ChartPanel title={title}>
      {children}
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <LineChart data={data} margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" />
          {x.categories ? (
            <XAxis dataKey="x" type="category" {...CATEGORY_TICKS} label={xAxisTitle(x.x.title)} />
          ) : (
            <XAxis
              dataKey="x"
              type="number"
              domain={['dataMin', 'dataMax']}
              label={xAxisTitle(x.x.title)}
            />
          )}
          <YAxis domain={SCORE_DOMAIN} label={yAxisTitle(x.y.title)} />
          <Tooltip
            formatter={formatMean}
            labelFormatter={(label: unknown) =>
              pointLabel !== undefined && typeof label === 'number'
                ? pointLabel(label)
                : String(label)
            }
          />
          <Legend verticalAlign="top" wrapperStyle={LEGEND_STYLE} />
          {sims.map((sim, index) => (
            <Line
              key={sim}
              dataKey={seriesKey(index)}
              name={sim}
              stroke={colours.get(sim)}
              connectNulls
              isAnimationActive={false}
              dot={countDot}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <p className="muted small chart-note">
        A point’s size grows with the items behind its mean; hollow points stand on fewer than{' '}
        {FEW_ITEMS} items (the tooltip gives the count).
      </p>
    </ChartPanel>
  );
}
