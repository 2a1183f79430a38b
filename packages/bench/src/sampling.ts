import type { Sampling } from '@terrarium/schema';
import { seededRandom } from './hash';

/** Positions of AgentWorldBench's rule: first, three evenly spaced middle ones, last. */
const AGENTWORLD_FRACTIONS = [0, 0.25, 0.5, 0.75, 1] as const;

/**
 * Which of a trajectory's `total` transitions (0-based, ascending, no duplicates) become items.
 * `seed` only matters for `random`: the same seed picks the same turns.
 */
export function sampleTurnIndices(total: number, sampling: Sampling, seed: number): number[] {
  if (total <= 0) return [];
  switch (sampling.kind) {
    case 'all':
      return Array.from({ length: total }, (_, i) => i);
    case 'agentworld': {
      // Short trajectories collapse to fewer positions; the Set drops the coinciding ones.
      const picked = new Set(AGENTWORLD_FRACTIONS.map((f) => Math.round(f * (total - 1))));
      return [...picked].toSorted((a, b) => a - b);
    }
    case 'random': {
      if (sampling.count >= total) return Array.from({ length: total }, (_, i) => i);
      // Partial Fisher-Yates: the first `count` slots are a uniform sample without replacement.
      const indices = Array.from({ length: total }, (_, i) => i);
      const random = seededRandom(seed);
      for (let i = 0; i < sampling.count; i++) {
        const j = i + Math.floor(random() * (total - i));
        const here = indices[i] ?? i;
        indices[i] = indices[j] ?? j;
        indices[j] = here;
      }
      return indices.slice(0, sampling.count).toSorted((a, b) => a - b);
    }
  }
}
