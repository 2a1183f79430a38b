import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createRouter, researcherProcedure, simulatorTrpcError } from '../trpc';
import { measureWorlds, measureWorldsReport } from './measure-worlds';

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

/** Thin: the reconstruction and replay live in @terrarium/executable-worlds. */
export const worldsRouter = createRouter({
  sufficiency: researcherProcedure.input(SufficiencyInput).query(async ({ ctx, input, signal }) => {
    const report = await measureWorldsReport(ctx.store, input, signal).catch((error: unknown) => {
      throw simulatorTrpcError(error);
    });
    if (report === null)
      throw new TRPCError({ code: 'CLIENT_CLOSED_REQUEST', message: 'the request was closed' });
    return report;
  }),
  /** `sufficiency` with its progress: `progress` events (worlds replayed of all), then `report`. */
  sufficiencyEvents: researcherProcedure.input(SufficiencyInput).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    try {
      yield* measureWorlds(ctx.store, input, signal);
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
});
