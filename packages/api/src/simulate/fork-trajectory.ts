import { randomUUID } from 'node:crypto';
import type { Store } from '@terrarium/db';
import type { Action, JsonValue, Metadata, Step, Trajectory } from '@terrarium/schema';
import {
  answeredCallId,
  answeredOrThrow,
  simContextOf,
  transitionOf,
  type PromptFolder,
  type Transition,
  type WorldModel,
} from '@terrarium/worlds';
import { listDatasetTrajectories, loadTrajectory } from './load-trajectories';
import { resolveSimulator } from './resolve-simulator';
import { runPromptsOf } from '../bench/run-prompts';
import { officialProtocolSimulator } from './official-simulator';
import { endpointAllowlistFromEnv, parseSimSpec, SimulatorError } from './sim-spec';
import { eventStream } from './event-stream';
import { requireTrajectory } from './simulate-trajectory';

/** A fork continues at most this many steps past the edited one. */
export const MAX_FORK_CONTINUE_STEPS = 50;

export interface ForkRequest {
  trajectoryId: string;
  /** 0-based index of the step whose action is replaced; it must be an environment action. */
  step: number;
  /** The action the agent takes instead (not a message: the environment must answer it). */
  action: Action;
  sim: string;
  /** Real steps carried on past the edited one (default: to the end; at most 50). */
  continueSteps?: number;
  /** Dataset the fork is stored in (default: `<parent dataset>-forks`). */
  dataset?: string;
}

export interface ForkOptions {
  signal?: AbortSignal;
  /** After each simulated observation: how many of the fork's predictions are done. */
  onProgress?: (done: number, total: number) => void;
  allowlist?: readonly string[];
  fetch?: typeof fetch;
  anyOnnxPath?: boolean;
  /** A ready simulator instead of resolving `sim` (tests). */
  simulator?: WorldModel;
  /**
   * `serve --prompts DIR`: an `openai:` simulator continues the fork speaking the official
   * AgentWorldBench protocol with this folder, as simulate and bench runs do.
   */
  prompts?: PromptFolder | null;
}

export interface ForkResult {
  datasetId: string;
  datasetName: string;
  trajectoryId: string;
  externalId: string;
  /** Steps of the fork: the `step` real ones before the edit, the edited one, the continued ones. */
  steps: number;
  /** Observations the simulator predicted (the edited step's included). */
  simulated: number;
  /** Of those, the ones where the simulator failed (recorded as `error` observations). */
  failed: number;
}

/** What a fork's `metadata.fork` records, so the fork can always be traced back and redone. */
export interface ForkOrigin {
  parentDataset: { id: string; name: string };
  parentTrajectory: { id: string; externalId: string };
  step: number;
  sim: string;
  originalAction: Action;
  editedAction: Action;
  continueSteps: number;
  /** SHA-256 of the prompt folder an `openai:` simulator spoke with (see RunPrompts); else null. */
  promptsHash: string | null;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The edited action keeps the original call id, so the observation still answers the same call. */
function withCallIdOf(original: Action, edited: Action): Action {
  if (edited.type === 'tool_call' && original.type === 'tool_call') {
    return { ...edited, callId: edited.callId ?? original.callId };
  }
  return edited;
}

function originMetadata(origin: ForkOrigin): JsonValue {
  return {
    parentDataset: origin.parentDataset,
    parentTrajectory: origin.parentTrajectory,
    step: origin.step,
    sim: origin.sim,
    originalAction: origin.originalAction,
    editedAction: origin.editedAction,
    continueSteps: origin.continueSteps,
    promptsHash: origin.promptsHash,
  };
}

/**
 * The step `template` (its index, actor, action) answered by the simulator, closed loop: the
 * simulator sees the fork's own history, not the parent's. A failing prediction is kept as an
 * `error` observation naming the failure, so a fork never silently drops a step.
 */
async function simulatedStep(
  simulator: WorldModel,
  parent: Trajectory,
  history: readonly Transition[],
  template: Step,
  extra: Metadata,
  signal: AbortSignal | undefined,
): Promise<{ step: Step; failed: boolean }> {
  const base = { ...template, reward: null, timing: null };
  try {
    // A miss (replay cannot answer an edited action) is a failure, not an empty observation.
    const prediction = answeredOrThrow(
      await simulator.predict(
        simContextOf(parent),
        [...history],
        template.action,
        signal === undefined ? {} : { signal },
      ),
    );
    const provenance: Metadata = { backend: prediction.provenance.backend };
    provenance['cache'] = prediction.provenance.cache;
    provenance['model'] = prediction.provenance.model ?? null;
    return {
      failed: false,
      step: {
        ...base,
        observation: prediction.observation,
        metadata: {
          ...extra,
          simulated: true,
          provenance,
          latencyMs: prediction.latencyMs,
          usage: {
            inputTokens: prediction.usage.inputTokens,
            outputTokens: prediction.usage.outputTokens,
          },
          ...(prediction.reasoning === undefined ? {} : { simReasoning: prediction.reasoning }),
        },
      },
    };
  } catch (error) {
    signal?.throwIfAborted();
    return {
      failed: true,
      step: {
        ...base,
        observation: {
          kind: 'error',
          content: errorText(error),
          callId: answeredCallId(template.action),
        },
        metadata: {
          ...extra,
          simulated: true,
          provenance: { backend: simulator.id, cache: null, model: null },
          latencyMs: 0,
          error: errorText(error),
        },
      },
    };
  }
}

/**
 * "What if": replaces the action at `step` and lets a simulator play the environment from there.
 * Steps before it are the parent's, unchanged. The edited step gets the simulator's observation.
 * After it, the parent's own next actions are replayed (there is no agent to choose new ones), and
 * the simulator predicts each environment answer from the fork's history so far (closed loop);
 * messages between agent and user are carried over as they were. Each simulated step records
 * `simulated: true`, its provenance and latency in its metadata.
 *
 * The fork is stored as an ordinary trajectory through the store's import (a dataset named
 * `<parent dataset>-forks` by default), so it is listed, replayed and compared like any other;
 * `metadata.fork` names its parent, the step, the simulator and both actions.
 */
export async function forkTrajectory(
  store: Store,
  request: ForkRequest,
  options: ForkOptions = {},
): Promise<ForkResult> {
  const detail = await requireTrajectory(store, request.trajectoryId);
  const parent = await loadTrajectory(store, detail);
  const original = parent.steps[request.step];
  if (original === undefined) {
    throw new SimulatorError(
      'step',
      `trajectory ${detail.id} has ${parent.steps.length} steps; there is no step ${request.step}`,
    );
  }
  if (original.action.type === 'message') {
    throw new SimulatorError(
      'step',
      `step ${request.step} is a message, not an environment action; fork at a tool call or command`,
    );
  }
  if (request.action.type === 'message') {
    throw new SimulatorError('action', 'a message gets no environment observation to simulate');
  }
  const remaining = parent.steps.length - request.step - 1;
  const continueSteps = Math.min(
    request.continueSteps ?? MAX_FORK_CONTINUE_STEPS,
    MAX_FORK_CONTINUE_STEPS,
    remaining,
  );
  if (!Number.isInteger(continueSteps) || continueSteps < 0) {
    throw new SimulatorError('continueSteps', 'expected a whole number of steps, 0 or more');
  }
  if (options.simulator === undefined && parseSimSpec(request.sim, 'sim').kind === 'replay') {
    throw new SimulatorError(
      'sim',
      'replay answers only what its dataset recorded after the very same history, and a fork departs from it: fork with retrieval or a model',
    );
  }
  const datasets = await store.listDatasets();
  const parentDataset = datasets.find((dataset) => dataset.id === detail.datasetId);
  const parentDatasetName = parentDataset?.name ?? detail.datasetId;
  const datasetName = request.dataset ?? `${parentDatasetName}-forks`;

  const prompts = options.prompts ?? null;
  // The official protocol applies to endpoints only; replay, retrieval and ONNX ignore the folder.
  const official =
    options.simulator === undefined &&
    prompts !== null &&
    parseSimSpec(request.sim, 'sim').kind === 'openai';
  const allowlist = options.allowlist ?? endpointAllowlistFromEnv();
  const simulator =
    options.simulator ??
    (official && prompts !== null
      ? officialProtocolSimulator(request.sim, detail, prompts, {
          allowlist,
          fetch: options.fetch ?? fetch,
        })
      : undefined) ??
    (await resolveSimulator(request.sim, {
      store,
      // Replay and retrieval draw on the parent's dataset; retrieval leaves the parent out, so
      // the fork's future is never read from the very trajectory it departs from.
      trajectory: detail,
      allowlist,
      fetch: options.fetch ?? fetch,
      anyOnnxPath: options.anyOnnxPath ?? false,
    }));

  const editedAction = withCallIdOf(original.action, request.action);
  const origin: ForkOrigin = {
    parentDataset: { id: detail.datasetId, name: parentDatasetName },
    parentTrajectory: { id: detail.id, externalId: detail.externalId },
    step: request.step,
    sim: request.sim,
    originalAction: original.action,
    editedAction,
    continueSteps,
    promptsHash: official && prompts !== null ? runPromptsOf(prompts).hash : null,
  };

  const steps: Step[] = parent.steps.slice(0, request.step);
  const history: Transition[] = [];
  for (const step of steps) {
    const transition = transitionOf(step);
    if (transition !== null) history.push(transition);
  }
  const later = parent.steps.slice(request.step + 1, request.step + 1 + continueSteps);
  const total = 1 + later.filter((step) => step.action.type !== 'message').length;
  let simulated = 0;
  let failed = 0;
  const simulate = async (template: Step, extra: Metadata) => {
    options.signal?.throwIfAborted();
    const outcome = await simulatedStep(
      simulator,
      parent,
      history,
      template,
      extra,
      options.signal,
    );
    simulated++;
    if (outcome.failed) failed++;
    const transition = transitionOf(outcome.step);
    if (transition !== null) history.push(transition);
    steps.push(outcome.step);
    options.onProgress?.(simulated, total);
  };

  await simulate(
    { ...original, action: editedAction, reasoning: null },
    { edited: true, originalAction: original.action },
  );
  for (const step of later) {
    if (step.action.type === 'message') {
      steps.push({ ...step, metadata: { ...step.metadata, fromParent: true } });
    } else {
      await simulate(step, { fromParent: true });
    }
  }

  const externalId = `${detail.externalId}~fork@${request.step + 1}~${randomUUID().slice(0, 8)}`;
  const fork: Trajectory = {
    ...parent,
    externalId,
    outcome: { reward: null, success: null },
    steps: steps.map((step, index) => ({ ...step, index })),
    metadata: { ...parent.metadata, fork: originMetadata(origin) },
    source: { file: detail.sourceFile, line: null, record: { fork: originMetadata(origin) } },
  };

  options.signal?.throwIfAborted();
  const batch = await store.beginImport(datasetName);
  try {
    await batch.addTrajectories([fork]);
    await batch.commit();
  } catch (error) {
    await batch.abort().catch(() => undefined);
    throw error;
  }
  // Full-text search splits the id at its punctuation; the dataset's list finds it exactly.
  const stored = (await listDatasetTrajectories(store, batch.datasetId)).find(
    (row) => row.externalId === externalId,
  );
  if (stored === undefined) throw new Error(`the fork ${externalId} was not found after import`);
  return {
    datasetId: batch.datasetId,
    datasetName,
    trajectoryId: stored.id,
    externalId,
    steps: fork.steps.length,
    simulated,
    failed,
  };
}

export type ForkEvent =
  { type: 'progress'; done: number; total: number } | { type: 'done'; fork: ForkResult };

/**
 * `forkTrajectory` as a stream of events: one `progress` after each simulated observation, then
 * `done` with the stored fork; a failure is thrown from the iteration. For the UI, which shows how
 * far a slow simulator (a model, an endpoint) has come.
 */
export function forkTrajectoryEvents(
  store: Store,
  request: ForkRequest,
  options: Omit<ForkOptions, 'onProgress'> = {},
): AsyncGenerator<ForkEvent> {
  return eventStream<ForkEvent, ForkResult>(
    (emit) =>
      forkTrajectory(store, request, {
        ...options,
        onProgress: (done, total) => emit({ type: 'progress', done, total }),
      }),
    (fork) => ({ type: 'done', fork }),
  );
}
