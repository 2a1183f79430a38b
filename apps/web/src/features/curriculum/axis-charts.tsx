import type { CurriculumGenerationStats as GenerationStatsRecord } from '@terrarium/api';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { CHART_MARGIN, xAxisTitle, yAxisTitle } from '../../app/chart-axes';
import { percentOf } from '../../app/format';

const CHART_HEIGHT = 220;
const AXIS_COLORS: Record<string, string> = {
  root: '#475569',
  'execution-length': '#2458b3',
  scenario: '#b45309',
  skill: '#7c3aed',
  verifier: '#15803d',
  noise: '#be123c',
};

/** The legend's words for an axis: the seed tasks are the tree's `root` in the data. */
function axisName(axis: string): string {
  return axis === 'root' ? 'seed tasks' : axis;
}

type AxisMetric = 'passRate' | 'meanTurns' | 'partialGroups';

const METRICS: { metric: AxisMetric; title: string; unit: string; percent: boolean }[] = [
  { metric: 'passRate', title: 'Pass rate per axis', unit: 'pass rate (%)', percent: true },
  { metric: 'meanTurns', title: 'Turns per axis', unit: 'turns per rollout', percent: false },
  {
    metric: 'partialGroups',
    title: 'Partially solved groups per axis',
    unit: 'partially solved groups (%)',
    percent: true,
  },
];

/** One point per generation, one key per axis the generation probed (an axis absent is a gap). */
function pointsOf(generations: GenerationStatsRecord[], metric: AxisMetric, percent: boolean) {
  return generations.map((stats) => {
    const point: Record<string, number> = { generation: stats.generation };
    for (const [axis, figures] of Object.entries(stats.byAxis))
      if (figures !== undefined)
        point[axis] = percent ? percentOf(figures[metric]) : figures[metric];
    return point;
  });
}

/**
 * Per axis (the mutation that made the task each lineage plays; the seed tasks' own line) the pass
 * rate, turns and partially solved groups over the generations.
 */
export function AxisCharts({ generations }: { generations: GenerationStatsRecord[] }) {
  const axes = [...new Set(generations.flatMap((stats) => Object.keys(stats.byAxis)))].toSorted();
  return (
    <div className="curriculum-axis-charts">
      {METRICS.map(({ metric, title, unit, percent }) => (
        <figure key={metric} aria-label={title}>
          <figcaption>{title}</figcaption>
          <ResponsiveContainer width="100%" minWidth={360} height={CHART_HEIGHT}>
            <LineChart data={pointsOf(generations, metric, percent)} margin={CHART_MARGIN}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="generation" allowDecimals={false} label={xAxisTitle('generation')} />
              {/* Whole numbers on the axis (walk 47: turns ticked at 0.85, 1.7, 2.55). */}
              <YAxis
                domain={percent ? [0, 100] : [0, 'auto']}
                allowDecimals={false}
                label={yAxisTitle(unit)}
              />
              <Tooltip />
              <Legend verticalAlign="top" />
              {axes.map((axis) => (
                <Line
                  key={axis}
                  dataKey={axis}
                  name={axisName(axis)}
                  stroke={AXIS_COLORS[axis] ?? '#0f172a'}
                  connectNulls={false}
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </figure>
      ))}
    </div>
  );
}

/** Simulated vs executable pass rate per generation, for runs with a simulator. */
export function GapChart({ generations }: { generations: GenerationStatsRecord[] }) {
  const points = generations.flatMap((stats) =>
    stats.gap === null
      ? []
      : [
          {
            generation: stats.generation,
            simulated: percentOf(stats.gap.passRateSimulated),
            executable: percentOf(stats.gap.passRateExecutable),
          },
        ],
  );
  if (points.length === 0) return null;
  return (
    <figure aria-label="Simulated vs executable chart">
      <figcaption>Simulated vs executable pass rate</figcaption>
      <ResponsiveContainer width="100%" minWidth={360} height={CHART_HEIGHT}>
        <LineChart data={points} margin={CHART_MARGIN}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="generation" label={xAxisTitle('generation')} />
          <YAxis domain={[0, 100]} label={yAxisTitle('pass rate (%)')} />
          <Tooltip />
          <Legend verticalAlign="top" />
          <Line
            dataKey="simulated"
            name="in the simulator"
            stroke="#be123c"
            isAnimationActive={false}
          />
          <Line
            dataKey="executable"
            name="in the executable world"
            stroke="#2458b3"
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
