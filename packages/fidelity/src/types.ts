import type { ObservationKind } from '@terrarium/schema';

/** One earlier transition as the simulator saw it: the action as text and the real observation. */
export interface HistoryTurn {
  action: string;
  observation: string;
}

/** What a metric may know beside the two texts. */
export interface ScoringContext {
  /** Kind of the real observation, when the source recorded it (`error` marks a failure). */
  kind?: ObservationKind | null;
  /** Earlier transitions of the trajectory. */
  history?: readonly HistoryTurn[];
  /** The action whose observation is scored. */
  action?: string;
}
