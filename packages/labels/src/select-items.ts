import { z } from 'zod';

/**
 * Only items of this domain are chosen from: a rule set's criteria are written for one domain
 * (default-tool's "the form the tool API really gives"), and graded on a terminal item they ask
 * a question that does not apply there.
 */
const domain = z.string().min(1).max(100).optional();

/** Which of a run's items a queue holds. */
export const QueueSelection = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all'), domain }),
  /** A seeded sample: the same seed always picks the same items. */
  z.object({
    kind: z.literal('random'),
    count: z.number().int().positive(),
    seed: z.number().int(),
    domain,
  }),
  /** The items where the rule score and the judge score are furthest apart. */
  z.object({ kind: z.literal('disagreement'), count: z.number().int().positive(), domain }),
]);
export type QueueSelection = z.infer<typeof QueueSelection>;

/** mulberry32: small, fast and good enough to pick samples reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The queue's item ids, in the order labelers get them. `itemIds` are the run's items in bench
 * order; `gaps` is |rule − judge| per item (items without both scores are never "disagreeing").
 * Random samples keep bench order, so a queue reads like the bench; disagreement is worst first.
 */
export function selectQueueItems(
  itemIds: readonly string[],
  selection: QueueSelection,
  gaps: ReadonlyMap<string, number> = new Map(),
): string[] {
  switch (selection.kind) {
    case 'all':
      return [...itemIds];
    case 'random': {
      const random = seededRandom(selection.seed);
      const shuffled = itemIds.map((id, index) => ({ index, key: random() }));
      shuffled.sort((a, b) => a.key - b.key);
      const chosen = shuffled.slice(0, selection.count).map((entry) => entry.index);
      chosen.sort((a, b) => a - b);
      return chosen.map((index) => itemIds[index] ?? '');
    }
    case 'disagreement':
      return itemIds
        .map((id, index) => ({ id, index, gap: gaps.get(id) }))
        .filter(
          (entry): entry is { id: string; index: number; gap: number } => entry.gap !== undefined,
        )
        .toSorted((a, b) => b.gap - a.gap || a.index - b.index)
        .slice(0, selection.count)
        .map((entry) => entry.id);
  }
}
