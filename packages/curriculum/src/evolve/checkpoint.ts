import { z } from 'zod';
import { SolutionAction, Task, Verifier } from '../tasks/task';
import { AXES } from './mutators';

const Axis = z.enum(AXES);

/**
 * A curriculum's whole state after a generation, as JSON. A job stores it after every generation;
 * resuming from it continues the same lineages with the same seeds, so a run killed after
 * generation g and resumed ends exactly where an uninterrupted run ends.
 */
export const CurriculumCheckpoint = z.object({
  /** Generations completed. */
  generation: z.number().int().nonnegative(),
  lineages: z.array(
    z.object({
      id: z.string(),
      nodes: z.array(
        z.object({
          task: Task,
          parentId: z.string().nullable(),
          axis: Axis.nullable(),
          generation: z.number().int().nonnegative(),
          tier: z.number().int().nonnegative(),
          description: z.string(),
          diff: z
            .object({
              goal: z.object({ before: z.string(), after: z.string() }),
              worldAdded: z.record(z.string(), z.string()),
              oracle: z.object({ before: z.array(SolutionAction), after: z.array(SolutionAction) }),
              verifier: z.object({ before: Verifier, after: Verifier }),
            })
            .nullable(),
        }),
      ),
      rejected: z.array(
        z.object({
          parentId: z.string(),
          axis: Axis,
          generation: z.number().int(),
          reasons: z.array(z.string()),
        }),
      ),
      currentId: z.string(),
      nextAxis: z.number().int().nonnegative(),
      capped: z.boolean(),
    }),
  ),
});
export type CurriculumCheckpoint = z.infer<typeof CurriculumCheckpoint>;
