import { ScoreSource } from '@terrarium/schema';
import { z } from 'zod';

/** The bootstraps of a run's groups, sent to a bootstrap worker thread (bootstrap-worker.ts). */
export const BootstrapRequest = z.object({
  tasks: z.array(z.string()),
  bootstrap: z.number().int().nonnegative(),
  seed: z.number().int(),
  groups: z.array(
    z.object({
      sim: z.string(),
      source: ScoreSource,
      metric: z.string(),
      /** Per task of `tasks`, in that order: the group's values. */
      strata: z.array(z.instanceof(Float64Array)),
    }),
  ),
});
export type BootstrapRequest = z.infer<typeof BootstrapRequest>;

const Bound = z.number().nullable();

/** Per group of the request, in its order: [task, low, high] of each cell. */
export const BootstrapReply = z.union([
  z.object({ intervals: z.array(z.array(z.tuple([z.string(), Bound, Bound]))) }),
  z.object({ error: z.string() }),
]);
export type BootstrapReply = z.infer<typeof BootstrapReply>;
