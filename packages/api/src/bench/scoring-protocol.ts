import { ItemScore, Observation, ScorableItem } from '@terrarium/schema';
import { z } from 'zod';

/** One prediction to score with the rule metrics, sent to a scoring worker thread. */
export const ScoringRequest = z.object({
  id: z.number().int(),
  item: ScorableItem,
  sim: z.string(),
  predicted: Observation,
});
export type ScoringRequest = z.infer<typeof ScoringRequest>;

export const ScoringReply = z.union([
  z.object({ id: z.number().int(), scores: z.array(ItemScore) }),
  z.object({ id: z.number().int(), error: z.string() }),
]);
export type ScoringReply = z.infer<typeof ScoringReply>;

/** The worker's first message: its modules are loaded and it takes requests. */
export const ScoringReady = z.object({ ready: z.literal(true) });
export type ScoringReady = z.infer<typeof ScoringReady>;
