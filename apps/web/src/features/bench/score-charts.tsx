import type { ScorePoint } from '@terrarium/schema';
import { useMemo, useState, type ComponentProps, type ReactNode } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import {
  COST_AXES,
  costVsScore,
  defaultCostAxis,
  HISTOGRAM_AXES,
  ITEM_SCORE_AXIS,
  lineChartSpecs,
  meanAlong,
  scoreHistogram,
  seriesKey,
  type AxisTitle,
  type CostAxis,
  type LineChartSpec,
} from './chart-data';

const SERIES_COLOURS = ['#2458b3', '#b45309', '#15803d', '#b42318', '#7c3aed', '#0e7490'];

function colourOf(index: number): string {
  return SERIES_COLOURS[index % SERIES_COLOURS.length] ?? '#2458b3';
}

const CHART_HEIGHT = 220;
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

// Room below and left of the plot for the axis titles.
const CHART_MARGIN = { top: 8, right: 16, bottom: 24, left: 8 };

/** Recharts axis labels: the x title under the axis, the y title along it. */
function xTitle(axis: AxisTitle) {
  return { value: axis.title, position: 'insideBottom' as const, offset: -16 };
}

function yTitle(axis: AxisTitle) {
  return {
    value: axis.title,
    angle: -90,
    position: 'insideLeft' as const,
    style: { textAnchor: 'middle' as const },
  };
}

function formatTooltipScore(value: unknown): string {
  return typeof value === 'number' ? value.toFixed(1) : String(value);
}

/** Distribution, score along the turn and the history, and cost against score, per simulator. */
export function ScoreCharts({
  points,
  sims,
}: {
  points: readonly ScorePoint[];
  sims: readonly string[];
}) {
  const [costAxis, setCostAxis] = useState<CostAxis | null>(null);
  const axis = costAxis ?? defaultCostAxis(points);
  const histogram = useMemo(() => scoreHistogram(points, sims), [points, sims]);
  const lines = useMemo(
    () =>
      lineChartSpecs(points).map((spec) => ({
        spec,
        data: meanAlong(points, sims, spec.axis),
      })),
    [points, sims],
  );
  const cost = useMemo(() => costVsScore(points, sims, axis), [points, sims, axis]);

  if (points.length === 0) return <p className="muted">No scored items yet.</p>;
  return (
    <div className="score-charts" data-testid="score-charts">
      <ChartPanel title="Score distribution">
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <BarChart data={histogram} margin={CHART_MARGIN}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="bin" label={xTitle(HISTOGRAM_AXES.x)} />
            <YAxis allowDecimals={false} label={yTitle(HISTOGRAM_AXES.y)} />
            <Tooltip />
            <Legend />
            {sims.map((sim, index) => (
              <Bar
                key={sim}
                dataKey={seriesKey(index)}
                name={sim}
                fill={colourOf(index)}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </ChartPanel>
      {lines.map(({ spec, data }) => (
        <ScoreLineChart key={spec.axis} spec={spec} data={data} sims={sims} />
      ))}
      <ChartPanel title={axis === 'tokens' ? 'Tokens vs score' : 'Latency vs score'}>
        <div className="segmented" role="group" aria-label="Cost axis">
          <button
            type="button"
            aria-pressed={axis === 'tokens'}
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
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <ScatterChart margin={CHART_MARGIN}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              dataKey="cost"
              type="number"
              name={axis === 'tokens' ? 'tokens' : 'latency (ms)'}
              label={xTitle(COST_AXES[axis])}
            />
            <YAxis
              dataKey="score"
              type="number"
              domain={SCORE_DOMAIN}
              name="score"
              label={yTitle(ITEM_SCORE_AXIS)}
            />
            <Tooltip />
            <Legend />
            {sims.map((sim, index) => (
              <Scatter
                key={sim}
                name={sim}
                data={cost[index] ?? []}
                fill={colourOf(index)}
                isAnimationActive={false}
              />
            ))}
          </ScatterChart>
        </ResponsiveContainer>
      </ChartPanel>
    </div>
  );
}

/** Mean score per simulator against a numeric x (turn index, history length), one line each. */
function ScoreLineChart({
  spec,
  data,
  sims,
}: {
  spec: LineChartSpec;
  data: ComponentProps<typeof LineChart>['data'];
  sims: readonly string[];
}) {
  return (
    <ChartPanel title={spec.title}>
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <LineChart data={data} margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="x" type="number" domain={['dataMin', 'dataMax']} label={xTitle(spec.x)} />
          <YAxis domain={SCORE_DOMAIN} label={yTitle(spec.y)} />
          <Tooltip formatter={formatTooltipScore} />
          <Legend />
          {sims.map((sim, index) => (
            <Line
              key={sim}
              dataKey={seriesKey(index)}
              name={sim}
              stroke={colourOf(index)}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </ChartPanel>
  );
}
