import type { JsonValue, Step, Trajectory } from '@terrarium/schema';
import { z } from 'zod';
import type { RolloutOrigin } from '../evolve/curriculum';
import type { Rollout } from '../evolve/rollout';
import { TERMINAL_TOOLS } from '../worlds/world-catalog';

export interface RolloutTrajectoryInput {
  rollout: Rollout;
  origin: RolloutOrigin;
  /** The curriculum run the rollout belongs to (its id names the trajectory). */
  runId: string;
  policy: string;
  /** The simulator spec of a simulated rollout. */
  sim: string | null;
}

/** What a rollout's id says of it (`rolloutExternalId`, `parseRolloutExternalId`). */
export type RolloutId = Pick<RolloutOrigin, 'generation' | 'lineageId' | 'probe' | 'mode'>;

/** `<run>/g<generation>/<lineage>/p<probe>`, `/sim` for the simulated twin: unique within a run. */
export function rolloutExternalId(runId: string, origin: RolloutId): string {
  const base = `${runId}/g${origin.generation}/${origin.lineageId}/p${origin.probe}`;
  return origin.mode === 'simulated' ? `${base}/sim` : base;
}

const ROLLOUT_ID = /^g(\d+)\/(.+)\/p(\d+)(\/sim)?$/;

/** The parts of a rollout's id (`rolloutExternalId`) in this run; null for any other id. */
export function parseRolloutExternalId(runId: string, externalId: string): RolloutId | null {
  const prefix = `${runId}/`;
  if (!externalId.startsWith(prefix)) return null;
  const match = ROLLOUT_ID.exec(externalId.slice(prefix.length));
  if (match === null) return null;
  const [, generation = '', lineageId = '', probe = '', simulated] = match;
  return {
    generation: Number(generation),
    lineageId,
    probe: Number(probe),
    mode: simulated === undefined ? 'executable' : 'simulated',
  };
}

/**
 * A rollout as an ordinary trajectory, so it lists, searches and replays in the viewer like any
 * imported run: the task's goal as the task, one command step per move with what the world
 * returned (and, where it differs, what the policy saw: a noisy screen or a simulator's answer, in
 * the step's metadata; in a simulated rollout also the simulator's answer, whether it diverged
 * and its content score), the verifier's reward as the outcome, and the task and its lineage in the
 * trajectory's metadata. Stored as `openai-messages` (command actions, no source file): no
 * importer reads it back from disk, the store keeps it whole.
 */
export function rolloutTrajectory(input: RolloutTrajectoryInput): Trajectory {
  const { rollout, origin } = input;
  const { task } = origin;
  const steps: Step[] = rollout.steps.map((step, index) => {
    const submit = step.action.startsWith('submit');
    const metadata: Record<string, JsonValue> = {};
    if (step.seen !== null) metadata['seen'] = step.seen;
    if (step.provenance !== null) metadata['provenance'] = step.provenance;
    if (step.exitCode !== null) metadata['exitCode'] = step.exitCode;
    if (step.simulated !== null) metadata['simulated'] = { ...step.simulated };
    return {
      index,
      actor: 'agent',
      action: submit
        ? { type: 'tool_call', name: 'submit', arguments: { answer: rollout.answer }, callId: null }
        : { type: 'command', command: step.action, interpreter: 'bash' },
      observation: submit
        ? null
        : {
            kind: step.action === 'invalid' ? 'error' : 'terminal',
            content: step.observation,
            callId: null,
          },
      reasoning: null,
      reward: submit ? rollout.evaluation.reward : null,
      timing: null,
      metadata,
    };
  });
  const curriculum: Record<string, JsonValue> = {
    runId: input.runId,
    lineageId: origin.lineageId,
    generation: origin.generation,
    tier: origin.tier,
    axis: origin.axis,
    probe: origin.probe,
    mode: origin.mode,
    policy: input.policy,
    sim: input.sim,
    seed: rollout.seed,
    taskId: task.id,
    passed: rollout.evaluation.passed,
    turns: rollout.turns,
    truncated: rollout.truncated,
  };
  return {
    externalId: rolloutExternalId(input.runId, origin),
    sourceFormat: 'openai-messages',
    sourceBenchmark: `curriculum/${task.provenance.source}`,
    domain: 'terminal',
    task: task.goal,
    systemPrompt: null,
    // The tools the policy had (the viewer lists them; "Tools 0" read as a run without any).
    tools: [...TERMINAL_TOOLS],
    toolsInferred: false,
    agentModel: input.policy,
    outcome: { reward: rollout.evaluation.reward, success: rollout.evaluation.passed },
    steps,
    metadata: {
      curriculum,
      verifier: rollout.evaluation.breakdown.map((check) => ({
        name: check.name,
        passed: check.passed,
        detail: check.detail,
      })),
    },
    source: { file: `curriculum:${input.runId}`, line: null, record: { curriculum } },
  };
}

const SimulatedStepRecord = z.object({
  predicted: z.string(),
  diverged: z.boolean(),
  contentScore: z.number().nullable(),
});

/** A step of a stored simulated rollout where the simulator's answer differs from the world's. */
export interface DivergentStep {
  /** 0-based, as the replay viewer counts steps. */
  step: number;
  action: string;
  /** What the executable world returned for the action. */
  executed: string;
  /** What the simulator answered instead (what the policy saw, before any noise). */
  predicted: string;
  /** Null when the simulator gave no answer: not scored. */
  contentScore: number | null;
}

/**
 * The divergent steps of a stored simulated rollout (`rolloutTrajectory` of a `simulated` probe),
 * read back from the steps' metadata; an executable rollout has none.
 */
export function divergentStepsOf(trajectory: Pick<Trajectory, 'steps'>): DivergentStep[] {
  return trajectory.steps.flatMap((step) => {
    const parsed = SimulatedStepRecord.safeParse(step.metadata['simulated']);
    if (!parsed.success || !parsed.data.diverged) return [];
    return [
      {
        step: step.index,
        action: step.action.type === 'command' ? step.action.command : JSON.stringify(step.action),
        executed: step.observation?.content ?? '',
        predicted: parsed.data.predicted,
        contentScore: parsed.data.contentScore,
      },
    ];
  });
}
