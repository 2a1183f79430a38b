import { simulateSteps } from '@terrarium/fidelity/simulate';
import type { PromptNeighbor } from '@terrarium/inference';
import type {
  DecodeClient,
  ExecutionProviderChoice,
  ModelVariant,
  WebExecutionProvider,
} from '@terrarium/inference/web';
import {
  readAllSteps,
  trajectoryFromDetail,
  type SimulatedStep,
  type SimulationResult,
  type Step,
  type Trajectory,
  type TrajectoryDetail,
} from '@terrarium/schema';
import { browserWorldModel, loadBrowserModel, type ModelSource } from './browser-model';

import { browserSimSpec } from './browser-sim-spec';

export { browserSimSpec, isBrowserSimSpec } from './browser-sim-spec';

declare global {
  interface Window {
    /** Set after each browser run over a trajectory (Compare, Models page), for tests to read. */
    terrariumLastBrowserRun?: SimulationResult;
  }
}

/** The largest window `trajectories.steps` answers (packages/api MAX_STEP_WINDOW). */
const STEP_WINDOW = 200;

/** What `loadTrajectoryForBrowser` needs of the tRPC client (the app's `useTRPCClient()`). */
export interface TrajectoryReader {
  trajectories: {
    get: { query(input: { trajectoryId: string }): Promise<TrajectoryDetail> };
    steps: {
      query(input: {
        trajectoryId: string;
        offset: number;
        limit: number;
      }): Promise<{ steps: Step[]; total: number }>;
    };
  };
}

/** What `stepNeighbors` needs of the tRPC client. */
export interface NeighborReader {
  models: {
    neighbors: {
      query(input: {
        trajectoryId: string;
        step: number;
      }): Promise<{ neighbors: PromptNeighbor[] }>;
    };
  };
}

/**
 * The server's neighbors of each step of a stored trajectory (its dataset, the trajectory left
 * out): what the model reads in the browser, as it does on the server.
 */
export function stepNeighbors(
  client: NeighborReader,
  trajectoryId: string,
): (stepIndex: number) => Promise<readonly PromptNeighbor[]> {
  return async (step) => (await client.models.neighbors.query({ trajectoryId, step })).neighbors;
}

/** A stored trajectory with all its steps, read window by window as the server does. */
export async function loadTrajectoryForBrowser(
  client: TrajectoryReader,
  trajectoryId: string,
): Promise<Trajectory> {
  const detail = await client.trajectories.get.query({ trajectoryId });
  const steps = await readAllSteps(
    (offset, limit) => client.trajectories.steps.query({ trajectoryId, offset, limit }),
    STEP_WINDOW,
  );
  return trajectoryFromDetail(detail, steps);
}

export interface BrowserSimulationOptions {
  /** Default: the bundled model served by the Terrarium server. */
  source?: ModelSource;
  /** Default `auto` (WebGPU when an adapter exists). */
  executionProvider?: ExecutionProviderChoice;
  /** Default `int8` when the folder has it. */
  variant?: ModelVariant;
  /** Default: the page's decoding worker (tests pass one on a MessageChannel). */
  client?: DecodeClient;
  /**
   * The recorded transitions the model is shown before the step at `stepIndex` (the page asks the
   * server: `models.neighbors`). Without it the model predicts without retrieved context.
   */
  neighbors?: (stepIndex: number) => Promise<readonly PromptNeighbor[]>;
  /** At most this many transitions, from the first. */
  maxSteps?: number;
  /** Output budget per prediction (default: the ONNX world model's, 256). */
  maxTokens?: number;
  /**
   * Told once the model is loaded: the provider asked for, the one it runs on, and why not WebGPU
   * when it fell back.
   */
  onModel?: (loaded: {
    asked: ExecutionProviderChoice;
    executionProvider: WebExecutionProvider;
    fallbackReason: string | null;
  }) => void;
  signal?: AbortSignal;
  onStep?: (step: SimulatedStep) => void;
}

/**
 * The server's `simulate.run`, in the browser: the ONNX model predicts each transition of the
 * trajectory open loop (real history, real action), and every prediction is scored as the server
 * scores it (both run fidelity's `simulateSteps`). The result has
 * the `SimulationResult` shape the Compare view shows; its `sim` is `browserSimSpec(model)`.
 */
export async function simulateInBrowser(
  trajectory: Trajectory,
  options: BrowserSimulationOptions = {},
): Promise<SimulationResult> {
  const asked = options.executionProvider ?? 'auto';
  const model = await loadBrowserModel(
    options.source ?? { kind: 'served', name: 'terrarium-wm-tiny' },
    asked,
    {
      ...(options.variant === undefined ? {} : { variant: options.variant }),
      ...(options.client === undefined ? {} : { client: options.client }),
    },
  );
  options.onModel?.({
    asked,
    executionProvider: model.executionProvider,
    fallbackReason: model.fallbackReason,
  });
  const label = `${model.name} (${model.executionProvider}, ${model.variant})`;
  const neighbors = options.neighbors;
  const steps = await simulateSteps(
    trajectory,
    (input) =>
      browserWorldModel(
        model,
        neighbors === undefined ? undefined : () => neighbors(input.stepIndex),
      ),
    {
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onStep === undefined ? {} : { onStep: options.onStep }),
      ...(options.maxTokens === undefined
        ? {}
        : { predictOptions: { maxTokens: options.maxTokens } }),
      provenance: () => ({ backend: 'onnx-browser', cache: null, model: label }),
    },
  );
  const result = { trajectory: trajectory.externalId, sim: browserSimSpec(model.name), steps };
  if (typeof window !== 'undefined') window.terrariumLastBrowserRun = result;
  return result;
}
