import { z } from 'zod';

/** The pg-boss queue bench-run chunks go through. */
export const BENCH_RUN_QUEUE = 'bench-run';

/** One job: some items of one run for one simulator. Small, so several workers share a run. */
export const ChunkJob = z.object({
  runId: z.string(),
  sim: z.string(),
  itemIds: z.array(z.string()).min(1),
});
export type ChunkJob = z.infer<typeof ChunkJob>;
