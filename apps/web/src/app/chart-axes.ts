// Axis titles as every chart draws them (Recharts `label` props).

/** Room around the plot: below it for the x title, left of it for the y title. */
export const CHART_MARGIN = { top: 8, right: 16, bottom: 24, left: 8 };

/** The x title, under the tick labels, in the room the bottom margin leaves. */
export function xAxisTitle(title: string) {
  return { value: title, position: 'insideBottom', offset: -16 } as const;
}

/**
 * The y title along its axis, anchored at its middle: a long one stays centred on the axis
 * instead of running off the plot's end.
 */
export function yAxisTitle(title: string, side: 'left' | 'right' = 'left') {
  return {
    value: title,
    angle: side === 'left' ? -90 : 90,
    position: side === 'left' ? 'insideLeft' : 'insideRight',
    style: { textAnchor: 'middle' },
  } as const;
}

/**
 * Tick labels of a category axis (score bins, token ranges, criteria): every one drawn, slanted so
 * that neighbours do not run into each other on a narrow panel. Recharts' default drops labels it
 * thinks would overlap, which left bins such as "0-10" or "512-1,023" unnamed under their bars.
 */
export const CATEGORY_TICKS = {
  interval: 0,
  angle: -35,
  textAnchor: 'end',
  height: 52,
  tick: { fontSize: 11 },
} as const;
