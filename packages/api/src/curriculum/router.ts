import {
  builtinSeedTasks,
  runCurriculum,
  scriptedRunOptions,
  seedTasksFromTrajectories,
  type SeedTasks,
} from '@terrarium/curriculum';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { findDataset } from '../simulate/find-trajectory';
import { loadDataset } from '../simulate/load-trajectories';
import { simulatorTrpcError } from '../simulate/router';
import { createRouter, researcherProcedure } from '../trpc';

export const CurriculumRunInput = z.object({
  /** Dataset id or name, or `builtin` for the scratch tasks (the demo). */
  dataset: z.string().min(1).max(200),
  policy: z.literal('scripted').default('scripted'),
  /** Bounded: the run happens inside the request until the curriculum job lands. */
  generations: z.number().int().min(1).max(30).default(8),
  probes: z.number().int().min(1).max(32).default(8),
  scheduler: z.enum(['lineage', 'band']).default('lineage'),
  maxDepth: z.number().int().min(1).max(15).default(15),
  seed: z.number().int().default(0),
});

/** Thin: loads the seed tasks; lineages, mutators and schedulers live in @terrarium/curriculum. */
export const curriculumRouter = createRouter({
  run: researcherProcedure.input(CurriculumRunInput).mutation(async ({ ctx, input }) => {
    let seeds: SeedTasks;
    if (input.dataset === 'builtin') {
      seeds = builtinSeedTasks();
    } else {
      const dataset = await findDataset(ctx.store, input.dataset).catch((error: unknown) => {
        throw simulatorTrpcError(error);
      });
      seeds = await seedTasksFromTrajectories(await loadDataset(ctx.store, dataset.id));
    }
    if (seeds.tasks.length === 0) {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: `no task of ${input.dataset} passes its gates (${seeds.rejected.length} rejected)`,
      });
    }
    const result = await runCurriculum(
      seeds.tasks,
      input.generations,
      scriptedRunOptions(seeds, input),
    );
    return {
      generations: result.generations,
      lineages: result.lineages,
      rejectedSeeds: seeds.rejected,
    };
  }),
});
