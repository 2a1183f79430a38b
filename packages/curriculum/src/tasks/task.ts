import { z } from 'zod';

/**
 * One check of a verifier. State checks read the final world (files, command output in a fork of it,
 * SQL rows); answer checks read what the agent submitted (or, without a submission, the output of
 * its last action, the way InterCode scores bash episodes).
 */
export const VerifierCheck = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file-equals'), path: z.string().min(1), content: z.string() }),
  z.object({ kind: z.literal('file-contains'), path: z.string().min(1), text: z.string().min(1) }),
  z.object({ kind: z.literal('file-exists'), path: z.string().min(1), exists: z.boolean() }),
  z.object({
    kind: z.literal('command-output'),
    /** Run in a fork of the final world, so checking never changes the session. */
    command: z.string().min(1),
    expected: z.string(),
  }),
  z.object({
    kind: z.literal('sql-rows'),
    query: z.string().min(1),
    expected: z.array(z.array(z.union([z.string(), z.number(), z.null()]))),
  }),
  z.object({
    kind: z.literal('answer-equals'),
    expected: z.string(),
    /** `trim`: surrounding whitespace ignored; `lines`: trailing spaces per line and blank ends ignored. */
    normalize: z.enum(['exact', 'trim', 'lines']).default('trim'),
  }),
  z.object({ kind: z.literal('answer-contains'), text: z.string().min(1) }),
  z.object({
    kind: z.literal('record-equals'),
    /** Tool worlds: a record of the final state (after applied writes), or one field of it. */
    table: z.string().min(1),
    key: z.string().min(1),
    /** Object keys / list indexes into the record; empty: the whole record. */
    field: z.array(z.union([z.string(), z.number().int().nonnegative()])).default([]),
    /** null also matches a record or field that does not exist. */
    expected: z.json(),
  }),
  z.object({
    kind: z.literal('code'),
    /**
     * Defines `score(item)` returning a number in [0, 1], null or `{score, detail}`; run in the
     * rubrics' QuickJS sandbox (no host access) within `timeoutMs` and `memoryMb`. `item.prediction`
     * is the answer; `item.reference` is JSON text `{state, files, outputs, rows}`: the world's
     * state summary, the contents of `files` (null when missing), the output of each of
     * `commands` (run in a fork) and the rows of each of `queries` (SQL worlds).
     */
    language: z.enum(['javascript', 'typescript']).default('javascript'),
    source: z.string().min(1).max(100_000),
    timeoutMs: z.number().int().min(1).max(10_000).default(1000),
    memoryMb: z.number().int().min(1).max(256).default(32),
    files: z.array(z.string().min(1)).max(100).default([]),
    commands: z.array(z.string().min(1)).max(20).default([]),
    queries: z.array(z.string().min(1)).max(20).default([]),
    /** The check passes when the score is at least this. */
    passAt: z.number().min(0).max(1).default(1),
  }),
]);
export type VerifierCheck = z.infer<typeof VerifierCheck>;

export const WeightedCheck = z.object({
  /** Shown in the breakdown; defaults to a description of the check. */
  name: z.string().optional(),
  weight: z.number().positive().default(1),
  check: VerifierCheck,
});
export type WeightedCheck = z.infer<typeof WeightedCheck>;

export const Verifier = z.object({
  checks: z.array(WeightedCheck).min(1),
  /** Reward at or above this passes (reward is Σ weight·passed / Σ weight). */
  passThreshold: z.number().min(0).max(1).default(1),
});
export type Verifier = z.infer<typeof Verifier>;

/** One solution action: a shell line (the default tool) or a call of one of the world's tools. */
export const SolutionAction = z.union([
  z.string(),
  z.object({ tool: z.string().min(1), arguments: z.record(z.string(), z.json()) }),
]);
export type SolutionAction = z.infer<typeof SolutionAction>;

export const Provenance = z.object({
  /** e.g. `intercode/bash`, `swe-agent`, `builtin`. */
  source: z.string(),
  /** The source trajectory's external id. */
  trajectory: z.string().nullable(),
  /** 0-based indexes of the steps the task was derived from (goal, oracle, expected state). */
  steps: z.array(z.number().int().nonnegative()),
  note: z.string().optional(),
});
export type Provenance = z.infer<typeof Provenance>;

export const WorldRef = z.object({
  /** A world in the server's catalog (`scratch`, `intercode-bash:fs_1`…). */
  id: z.string().min(1),
  params: z.record(z.string(), z.json()).default({}),
});
export type WorldRef = z.infer<typeof WorldRef>;

/** The most steps an episode may take, whether the task or the session asks for them. */
export const MAX_EPISODE_STEPS = 100_000;

export const Task = z.object({
  id: z
    .string()
    .max(256)
    .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits, . _ : - only'),
  goal: z.string().min(1),
  world: WorldRef,
  verifier: Verifier,
  /** A known solution; the gates run it and it must pass. */
  oracle: z.array(SolutionAction).min(1),
  /** An action that changes nothing relevant; the gates run it and it must fail. */
  noop: z.array(SolutionAction).default(['true']),
  maxSteps: z.number().int().positive().max(MAX_EPISODE_STEPS).default(30),
  provenance: Provenance,
});
export type Task = z.infer<typeof Task>;
export type TaskInput = z.input<typeof Task>;
