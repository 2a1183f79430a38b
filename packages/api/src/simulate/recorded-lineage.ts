import type { Trajectory } from '@terrarium/schema';
import { transitionOf } from '@terrarium/worlds';

/** A trajectory's system prompt and recorded transitions, each as comparable text. */
function turnsOf(trajectory: Trajectory): string[] {
  const turns = [JSON.stringify(trajectory.systemPrompt)];
  for (const step of trajectory.steps) {
    const transition = transitionOf(step);
    if (transition !== null)
      turns.push(JSON.stringify([transition.action, transition.observation]));
  }
  return turns;
}

function startsWith(longer: readonly string[], shorter: readonly string[]): boolean {
  return shorter.length <= longer.length && shorter.every((turn, i) => turn === longer[i]);
}

/**
 * The recorded runs of a dataset, each trajectory named by the run it is a copy of. An
 * AgentWorldBench file holds one row per sampled turn, each row carrying its trajectory's turns
 * (all of them, or fewer): imported as a dataset, one run is five trajectories. Copies whose
 * turns are the same or a prefix of another's get the id of the longest (first in the dataset's
 * order on ties), so leaving "the item's trajectory" out of retrieval leaves out every copy of it,
 * as the bench does with its own items (`benchCorpus`).
 */
export function byRecordedRun(trajectories: readonly Trajectory[]): {
  trajectories: Trajectory[];
  runOf: Map<string, string>;
} {
  const buckets = new Map<string, { id: string; turns: string[] }[]>();
  const runOf = new Map<string, string>();
  const entries = trajectories.map((trajectory, order) => ({
    trajectory,
    order,
    turns: turnsOf(trajectory),
  }));
  const longestFirst = entries.toSorted(
    (a, b) => b.turns.length - a.turns.length || a.order - b.order,
  );
  for (const { trajectory, turns } of longestFirst) {
    // Copies share their first recorded transition: only those are compared.
    const bucketKey = `${turns[0] ?? ''}\u0000${turns[1] ?? ''}`;
    const bucket = buckets.get(bucketKey) ?? [];
    const run = bucket.find((kept) => startsWith(kept.turns, turns));
    if (run === undefined) {
      bucket.push({ id: trajectory.externalId, turns });
      buckets.set(bucketKey, bucket);
    }
    runOf.set(trajectory.externalId, run?.id ?? trajectory.externalId);
  }
  return {
    trajectories: trajectories.map((trajectory) => ({
      ...trajectory,
      externalId: runOf.get(trajectory.externalId) ?? trajectory.externalId,
    })),
    runOf,
  };
}
