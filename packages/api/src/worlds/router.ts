import { measureSufficiency, trimReport } from '@terrarium/executable-worlds';
import { z } from 'zod';
import { findDataset } from '../simulate/find-trajectory';
import { listDatasetTrajectories, loadDataset } from '../simulate/load-trajectories';
import { createRouter, researcherProcedure, simulatorTrpcError } from '../trpc';

export const SufficiencyInput = z.object({
  /** Dataset id or name. */
  dataset: z.string().min(1).max(200),
  /** Pool episodes of one image into one reconstruction (InterCode's fs_1…). */
  pool: z.boolean().default(true),
  /** Mismatches sent back with both texts, for the diff view; the counts always cover all. */
  maxMismatches: z.number().int().min(0).max(2000).default(200),
  /** At most this many records per command family (the page filters by family). */
  perFamily: z.number().int().min(1).max(2000).optional(),
  /** Only mismatches, or only fallbacks; both without it. */
  outcome: z.enum(['mismatch', 'fallback']).optional(),
});

/** Thin: loads the dataset, the reconstruction and replay live in @terrarium/executable-worlds. */
export const worldsRouter = createRouter({
  sufficiency: researcherProcedure.input(SufficiencyInput).query(async ({ ctx, input }) => {
    const dataset = await findDataset(ctx.store, input.dataset).catch((error: unknown) => {
      throw simulatorTrpcError(error);
    });
    const trajectories = await loadDataset(ctx.store, dataset.id);
    const report = await measureSufficiency(trajectories, {
      dataset: dataset.name,
      pool: input.pool,
    });
    const trimmed = trimReport(report, {
      maxMismatches: input.maxMismatches,
      maxChars: 4000,
      ...(input.perFamily === undefined ? {} : { perFamily: input.perFamily }),
      ...(input.outcome === undefined ? {} : { outcome: input.outcome }),
    });
    // Loaded trajectories carry their store id (the replay's), so the report's `id` is that; the
    // page names each mismatch's trajectory by the id its file gave it.
    const names = new Map(
      (await listDatasetTrajectories(ctx.store, dataset.id)).map((summary) => [
        summary.id,
        summary.externalId,
      ]),
    );
    return {
      ...trimmed,
      trajectories: trimmed.trajectories.map((trajectory) => ({
        ...trajectory,
        name: names.get(trajectory.id) ?? trajectory.id,
      })),
    };
  }),
});
