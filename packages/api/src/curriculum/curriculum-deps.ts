import {
  builtinSeedTasks,
  openAIPolicy,
  scriptedPolicy,
  seedTasksFromTrajectories,
  type Policy,
  type RolloutSimulator,
  type SeedTasks,
  type Task,
} from '@terrarium/curriculum';
import type { Store } from '@terrarium/db';
import type { CurriculumRunDeps } from '@terrarium/jobs';
import { HostNotAllowedError, type WorldModel } from '@terrarium/worlds';
import { findDataset } from '../simulate/find-trajectory';
import { loadDataset } from '../simulate/load-trajectories';
import { datasetSimulator, onnxModel, openAIModel } from '../simulate/resolve-simulator';
import { endpointAllowlistFromEnv, parseSimSpec, SimulatorError } from '../simulate/sim-spec';

export interface CurriculumDepsOptions {
  /** Hosts an `openai:` policy or simulator may be on (default: TERRARIUM_ENDPOINT_ALLOWLIST). */
  allowlist?: readonly string[];
  fetch?: typeof fetch;
  /** Let `onnx:PATH` name any folder (the CLI); a server loads only the folders it lists. */
  anyOnnxPath?: boolean;
}

/** The dataset `builtin` is the scratch tasks of the demo; anything else a stored dataset. */
export const BUILTIN_DATASET = 'builtin';

/** The seed tasks of a dataset (gated tasks of its terminal/SWE trajectories), or the builtin ones. */
export async function curriculumSeeds(store: Store, dataset: string): Promise<SeedTasks> {
  if (dataset === BUILTIN_DATASET) return builtinSeedTasks();
  const found = await findDataset(store, dataset);
  return seedTasksFromTrajectories(await loadDataset(store, found.id));
}

/** `scripted`, or `openai:URL#MODEL` (an OpenAI-compatible endpoint with tool calling). */
export function curriculumPolicy(spec: string, options: CurriculumDepsOptions = {}): Policy {
  if (spec === 'scripted') return scriptedPolicy();
  const openai = /^openai:(https?:\/\/[^#\s]+)#(.+)$/.exec(spec);
  if (openai?.[1] !== undefined && openai[2] !== undefined) {
    try {
      return openAIPolicy({
        baseUrl: openai[1],
        model: openai[2],
        fetch: options.fetch ?? fetch,
        allowlist: options.allowlist ?? endpointAllowlistFromEnv(),
      });
    } catch (error) {
      if (error instanceof HostNotAllowedError)
        throw new SimulatorError(
          'policy',
          `${error.message} (set TERRARIUM_ENDPOINT_ALLOWLIST, comma-separated hosts)`,
        );
      throw error;
    }
  }
  throw new SimulatorError(
    'policy',
    `"${spec}" is not a policy; expected scripted or openai:URL#MODEL (an ONNX policy is not wired yet)`,
  );
}

/** Fails early (before a run is queued) on a simulator spec the run could not resolve. */
export function checkCurriculumSim(spec: string, dataset: string): void {
  const parsed = parseSimSpec(spec);
  if ((parsed.kind === 'replay' || parsed.kind === 'retrieval') && dataset === BUILTIN_DATASET)
    throw new SimulatorError(
      'sim',
      `${parsed.kind} draws on the seed dataset's recorded transitions; the builtin tasks have none`,
    );
}

async function worldModelFor(
  store: Store,
  spec: string,
  dataset: string,
  task: Task,
  options: CurriculumDepsOptions,
): Promise<WorldModel> {
  const parsed = parseSimSpec(spec);
  switch (parsed.kind) {
    case 'replay':
    case 'retrieval': {
      checkCurriculumSim(spec, dataset);
      const found = await findDataset(store, dataset);
      // Retrieval leaves out the trajectory the task came from: with it in, retrieval would be
      // replay of the very episode the task reconstructs.
      const exclude = task.provenance.trajectory;
      return datasetSimulator(
        store,
        parsed.kind,
        found.id,
        parsed.kind === 'retrieval' && exclude !== null ? { exclude } : {},
      );
    }
    case 'openai':
      return openAIModel(parsed.baseUrl, parsed.model, {
        allowlist: options.allowlist ?? endpointAllowlistFromEnv(),
        fetch: options.fetch ?? fetch,
      });
    case 'onnx':
      return onnxModel(spec, parsed.path, options);
  }
}

/** How the API, the server and the CLI play curriculum runs (the job's outside world). */
export function createCurriculumRunDeps(
  store: Store,
  options: CurriculumDepsOptions = {},
): CurriculumRunDeps {
  return {
    seedsFor: (run) => curriculumSeeds(store, run.dataset),
    policyFor: (spec) => curriculumPolicy(spec, options),
    async simulatorFor(spec, run, task): Promise<RolloutSimulator> {
      return {
        model: await worldModelFor(store, spec, run.dataset, task, options),
        context: { domain: 'terminal', task: task.goal, systemPrompt: null, tools: [] },
      };
    },
  };
}
