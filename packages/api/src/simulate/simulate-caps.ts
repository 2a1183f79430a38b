import { z } from 'zod';

/** Steps one simulate call may run at most, the same over tRPC and `POST /api/simulate`. */
export const MAX_SIMULATED_STEPS = 500;

/** The `maxSteps` field of every simulate transport (one schema, so the caps cannot drift). */
export const MaxSimulatedSteps = z.number().int().positive().max(MAX_SIMULATED_STEPS);
