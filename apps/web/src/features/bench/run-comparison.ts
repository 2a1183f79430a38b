import type { CellDelta, ScoreSelector } from '@terrarium/schema';
import { orderTasks } from './leaderboard';

export interface DeltaRow {
  sim: string;
  cells: CellDelta[];
}

/**
 * The deltas of one (source, metric) grouped per simulator, tasks in leaderboard order (overall,
 * macro, the rest). Comparisons may carry every score's cells; only the selected one is shown.
 */
export function deltaRows(
  cells: readonly CellDelta[],
  score: ScoreSelector,
  simOrder: readonly string[],
): DeltaRow[] {
  const bySim = new Map<string, CellDelta[]>();
  for (const cell of cells) {
    if (cell.source !== score.source || cell.metric !== score.metric) continue;
    bySim.set(cell.sim, [...(bySim.get(cell.sim) ?? []), cell]);
  }
  const sims = [
    ...simOrder.filter((sim) => bySim.has(sim)),
    ...[...bySim.keys()].filter((sim) => !simOrder.includes(sim)).toSorted(),
  ];
  return sims.map((sim) => {
    const simCells = bySim.get(sim) ?? [];
    const order = orderTasks(simCells.map((cell) => cell.task));
    return {
      sim,
      cells: simCells.toSorted((a, b) => order.indexOf(a.task) - order.indexOf(b.task)),
    };
  });
}

export type DeltaDirection = 'better' | 'worse' | 'same' | 'unknown';

/** A change counts as better or worse only when the two intervals are apart. */
export function deltaDirection(cell: Pick<CellDelta, 'delta' | 'separated'>): DeltaDirection {
  if (cell.delta === null) return 'unknown';
  if (!cell.separated || cell.delta === 0) return 'same';
  return cell.delta > 0 ? 'better' : 'worse';
}
