import type {
  Action,
  Actor,
  Metadata,
  Observation,
  Step,
  StepTiming,
  ToolSchema,
  Trajectory,
} from '@terrarium/schema';
import type { RecordContext } from '../adapter';
import { sourceRecordOf } from './json-guards';
import { inferToolSchemas } from './tool-schemas';

/** A step before its position is known; `buildTrajectory` numbers steps 0.. in order. */
export type StepDraft = Omit<Step, 'index'>;

export interface StepInit {
  actor: Actor;
  action: Action;
  observation?: Observation | null;
  reasoning?: string | null;
  reward?: number | null;
  timing?: StepTiming | null;
  metadata?: Metadata;
}

export function stepDraft(init: StepInit): StepDraft {
  return {
    actor: init.actor,
    action: init.action,
    observation: init.observation ?? null,
    reasoning: init.reasoning ?? null,
    reward: init.reward ?? null,
    timing: init.timing ?? null,
    metadata: init.metadata ?? {},
  };
}

export function messageStep(actor: Actor, text: string, init: Partial<StepInit> = {}): StepDraft {
  return stepDraft({ ...init, actor, action: { type: 'message', text }, observation: null });
}

export function timingAt(
  startedAt: string | null,
  durationMs: number | null = null,
): StepTiming | null {
  if (startedAt === null && durationMs === null) return null;
  return { startedAt, durationMs };
}

export interface TrajectoryDraft {
  externalId: string;
  sourceFormat: Trajectory['sourceFormat'];
  sourceBenchmark: string | null;
  domain: Trajectory['domain'];
  task: string | null;
  systemPrompt: string | null;
  /** Schemas given by the source; null when it has none, so they are inferred from the calls. */
  tools: ToolSchema[] | null;
  agentModel: string | null;
  outcome: Trajectory['outcome'];
  steps: StepDraft[];
  metadata?: Metadata;
}

export function buildTrajectory(
  draft: TrajectoryDraft,
  record: unknown,
  context: RecordContext,
): Trajectory {
  const steps: Step[] = draft.steps.map((step, index) => ({ index, ...step }));
  const inferred = draft.tools === null;
  return {
    externalId: draft.externalId,
    sourceFormat: draft.sourceFormat,
    sourceBenchmark: draft.sourceBenchmark,
    domain: draft.domain,
    task: draft.task,
    systemPrompt: draft.systemPrompt,
    tools: draft.tools ?? inferToolSchemas(steps),
    toolsInferred: inferred,
    agentModel: draft.agentModel,
    outcome: draft.outcome,
    steps,
    metadata: draft.metadata ?? {},
    source: { file: context.file, line: context.line, record: sourceRecordOf(record) },
  };
}

/** Outcome from a reward where only a full reward counts as success. */
export function rewardOutcome(reward: number | null): Trajectory['outcome'] {
  return { reward, success: reward === null ? null : reward === 1 };
}
