import { z } from 'zod';
import { Action, Actor, Observation } from './trajectory';

/** Where the browser finds a served model folder: `/models/<folder name>/<file>`. */
export const MODEL_URL_PREFIX = '/models/';

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

/**
 * Simulators whose score is not a model's: replay answers with the recorded observation itself, so
 * it scores (near) 100 by construction. It is an upper bound to read the others against, labelled
 * as one wherever it appears beside them, and never what a page picks to grade by default.
 */
const ORACLE_NOTES: Readonly<Record<string, string>> = {
  replay:
    'Oracle: replay answers with the recorded observation itself, so it scores ~100 by construction. An upper bound, not a model.',
};

/**
 * The bundled world model was trained here on four fifths of the tasks of the trajectories that
 * ship with Terrarium (its data manifest lists them). On a bench built from those files most items
 * are from tasks it trained on, which its score there cannot show: said wherever it is named.
 */
const BUNDLED_MODEL = /^onnx:(models|browser)\/terrarium-wm-tiny(@.*)?$/;

/** The bundled world model's folder name (models/terrarium-wm-tiny), as the server serves it. */
export const BUNDLED_MODEL_NAME = 'terrarium-wm-tiny';

/** Why `sim`'s scores may hold its own training data, or null when nothing says so. */
export function trainingDataNote(sim: string): string | null {
  return BUNDLED_MODEL.test(sim)
    ? 'Trained here on 4 of 5 tasks of the shipped tau2-bench, tau-bench airline and SWE-agent trajectories (models/terrarium-wm-tiny/data-manifest.json lists them): on a bench built from those files, most items come from tasks it trained on and its score overstates it. Its held-out figures are on the Models page.'
    : null;
}

/**
 * Whether `sim` answers only from the recorded transitions (replay, retrieval): its failed
 * predictions are misses, which a retry finds missing again, so nothing offers a retry for them.
 */
export function answersFromRecordings(sim: string): boolean {
  return sim === 'replay' || sim === 'retrieval';
}

/** How many of a run's failed predictions a retry could change: those of the model simulators. */
export function retryableFailures(failures: readonly { sim: string; failed: number }[]): number {
  return failures.reduce(
    (sum, failure) => sum + (answersFromRecordings(failure.sim) ? 0 : failure.failed),
    0,
  );
}

/** Why `sim` is an oracle, or null when it is not one. */
export function oracleNote(sim: string): string | null {
  return ORACLE_NOTES[sim] ?? null;
}

/**
 * The simulator of a run to grade, label or preview: the one picked when the run has it, else the
 * first that is not an oracle (an oracle's predictions are the real observations, so grading them
 * shows nothing), else the first; null for a run without simulators.
 */
export function simToGrade(sims: readonly string[], picked: string | null = null): string | null {
  if (picked !== null && sims.includes(picked)) return picked;
  return sims.find((sim) => oracleNote(sim) === null) ?? sims[0] ?? null;
}

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
