/** What a probe of B rollouts said about a lineage's current task. */
export interface ProbeResult {
  passes: number;
  rollouts: number;
}

export type Decision = 'advance' | 'stay' | 'retreat';

export interface Scheduler {
  readonly name: string;
  decide(probe: ProbeResult): Decision;
}

/**
 * Environment Evolution's lineage scheduler: a task is mastered, and the lineage moves on to a
 * harder child, when more than `threshold` of the probes pass (default 6 of 8).
 */
export function lineageScheduler(threshold = 6 / 8): Scheduler {
  return {
    name: 'lineage',
    decide: ({ passes, rollouts }) =>
      rollouts > 0 && passes / rollouts > threshold ? 'advance' : 'stay',
  };
}

/** Keeps success inside a band: harder above it, back to the parent below it. */
export function bandScheduler(low = 0.3, high = 0.7): Scheduler {
  return {
    name: 'band',
    decide: ({ passes, rollouts }) => {
      const rate = rollouts === 0 ? 0 : passes / rollouts;
      if (rate > high) return 'advance';
      if (rate < low) return 'retreat';
      return 'stay';
    },
  };
}
