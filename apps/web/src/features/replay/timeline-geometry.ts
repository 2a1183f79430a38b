import type { StepMarker } from '@terrarium/schema';

/** The step under horizontal position `x` of a timeline `width` pixels wide. */
export function stepAtX(x: number, width: number, count: number): number {
  if (count <= 0 || width <= 0) return 0;
  const index = Math.floor((x / width) * count);
  return Math.min(Math.max(index, 0), count - 1);
}

export const MARKER_COLORS = {
  error: '#c62828',
  user: '#8e44ad',
  tool_call: '#2563c9',
  command: '#1b8a5a',
  keystrokes: '#0f8b8d',
  browser: '#d97706',
  message: '#a0a8b3',
} as const;

export type MarkerCategory = keyof typeof MARKER_COLORS;

/** What a step's mark shows, in order of what a reader most needs to spot: errors, then the user. */
export function markerCategory(marker: StepMarker): MarkerCategory {
  if (marker.observationKind === 'error') return 'error';
  if (marker.actor === 'user') return 'user';
  return marker.actionType;
}

export const MARKER_LEGEND: { category: MarkerCategory; label: string }[] = [
  { category: 'tool_call', label: 'tool call' },
  { category: 'command', label: 'command' },
  { category: 'keystrokes', label: 'keys' },
  { category: 'browser', label: 'browser' },
  { category: 'message', label: 'message' },
  { category: 'user', label: 'user' },
  { category: 'error', label: 'error' },
];

/** The legend's entries for the kinds of mark these steps have, in the legend's order. */
export function legendFor(markers: readonly StepMarker[]): typeof MARKER_LEGEND {
  const present = new Set(markers.map(markerCategory));
  return MARKER_LEGEND.filter((entry) => present.has(entry.category));
}

/**
 * Paints one mark per step. With more steps than pixels, marks share pixels; errors are painted
 * last so that a single error is never hidden by its neighbours.
 */
export function paintTimeline(
  context: CanvasRenderingContext2D,
  markers: readonly StepMarker[],
  width: number,
  height: number,
): void {
  context.clearRect(0, 0, width, height);
  const count = markers.length;
  if (count === 0) return;
  const stepWidth = width / count;
  const markWidth = Math.max(stepWidth - (stepWidth > 4 ? 1 : 0), 1);
  const rewardBand = 4;
  const paintPass = (errorsOnly: boolean) => {
    for (const marker of markers) {
      const category = markerCategory(marker);
      if ((category === 'error') !== errorsOnly) continue;
      context.fillStyle = MARKER_COLORS[category];
      const x = Math.floor(marker.index * stepWidth);
      context.fillRect(x, rewardBand, markWidth, height - rewardBand);
      if (marker.reward !== null) {
        context.fillStyle = marker.reward > 0 ? '#15803d' : '#6b7280';
        context.fillRect(x, 0, markWidth, rewardBand - 1);
      }
    }
  };
  paintPass(false);
  paintPass(true);
}
