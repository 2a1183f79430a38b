/**
 * Axis titles as every chart draws them (Recharts `label` props). A rotated title is anchored at
 * its middle, so a long one stays centred on the axis instead of running off the plot's end; the
 * x title sits under the tick labels, in the room the chart's bottom margin leaves.
 */
export const CHART_MARGIN = { top: 8, right: 16, bottom: 24, left: 8 };

export function xAxisTitle(title: string) {
  return { value: title, position: 'insideBottom', offset: -16 } as const;
}

export function yAxisTitle(title: string, side: 'left' | 'right' = 'left') {
  return {
    value: title,
    angle: side === 'left' ? -90 : 90,
    position: side === 'left' ? 'insideLeft' : 'insideRight',
    style: { textAnchor: 'middle' },
  } as const;
}
