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

const AxisKey = z.enum([...AXES, 'root']);

/** A generation's figures as stored (`GenerationStats`), read back from JSON. */
export const GenerationStatsRecord = z.object({
  generation: z.number().int().positive(),
  tasks: z.number().int().nonnegative(),
  passRate: z.number(),
  partialGroups: z.number(),
  meanTurns: z.number(),
  meanTier: z.number(),
  byAxis: z.partialRecord(
    AxisKey,
    z.object({
      tasks: z.number().int().nonnegative(),
      passRate: z.number(),
      meanTurns: z.number(),
      partialGroups: z.number(),
    }),
  ),
  mutations: z.object({ accepted: z.number().int(), rejected: z.number().int() }),
  gap: z
    .object({
      passRateSimulated: z.number(),
      passRateExecutable: z.number(),
      divergentSteps: z.number().int().nonnegative(),
      steps: z.number().int().nonnegative(),
    })
    .nullable(),
  groups: z.array(
    z.object({
      lineageId: z.string(),
      taskId: z.string(),
      tier: z.number().int().nonnegative(),
      axis: AxisKey,
      passes: z.number().int().nonnegative(),
      rollouts: z.number().int().nonnegative(),
      meanTurns: z.number(),
      meanReward: z.number(),
      simulated: z
        .object({
          passes: z.number().int().nonnegative(),
          divergentSteps: z.number().int().nonnegative(),
          steps: z.number().int().nonnegative(),
        })
        .nullable(),
    }),
  ),
});
export type GenerationStatsRecord = z.infer<typeof GenerationStatsRecord>;
