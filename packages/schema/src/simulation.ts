import { z } from 'zod';
import { Action, Actor, Observation } from './trajectory';

/**
 * A simulator named the way the CLI and the API take it:
 * `replay`, `retrieval`, `onnx:PATH` (a local model folder), `openai:URL#MODEL`.
 */
export const SimSpec = z
  .string()
  .regex(/^(replay|retrieval|onnx:.+|openai:https?:\/\/[^#\s]+#.+)$/, {
    message: 'expected replay, retrieval, onnx:PATH or openai:URL#MODEL',
  });
export type SimSpec = z.infer<typeof SimSpec>;

export const SimProvenance = z.object({
  backend: z.string(),
  cache: z.enum(['hit', 'miss']).nullable(),
  model: z.string().nullable(),
});
export type SimProvenance = z.infer<typeof SimProvenance>;

/** One transition of a real trajectory, with what a simulator predicted for it (open loop). */
export const SimulatedStep = z.object({
  /** `Step.index` of the transition in its trajectory. */
  step: z.number().int(),
  actor: Actor,
  action: Action,
  real: Observation,
  predicted: Observation,
  reasoning: z.string().nullable(),
  provenance: SimProvenance,
  latencyMs: z.number(),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }),
  /** Rule metric id → score in [0,1] (null when the metric does not apply), plus `content`. */
  scores: z.record(z.string(), z.number().nullable()),
  /** Set when the simulator failed on this step (endpoint down, timeout…). */
  error: z.string().nullable(),
});
export type SimulatedStep = z.infer<typeof SimulatedStep>;

export const SimulationResult = z.object({
  trajectory: z.string(),
  sim: SimSpec,
  steps: z.array(SimulatedStep),
});
export type SimulationResult = z.infer<typeof SimulationResult>;
