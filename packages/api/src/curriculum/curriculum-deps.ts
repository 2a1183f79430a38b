import {
  builtinSeedTasks,
  decoderPolicy,
  openAIPolicy,
  POLICY_PROMPT_FORMAT_VERSION,
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
import {
  BUNDLED_POLICY_FOLDER,
  loadedModelFolder,
  shippedOnnxSpec,
} from '../simulate/onnx-simulator';
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
  const found = await findDataset(store, dataset, 'dataset', [BUILTIN_DATASET]);
  return seedTasksFromTrajectories(await loadDataset(store, found.id));
}

/** A policy a run may be started with (the Curriculum page offers these, `curriculum.policies`). */
export interface AvailablePolicy {
  spec: string;
  label: string;
  description: string;
}

/**
 * How an ONNX policy decodes: seeded sampling (the rollout's seed and the turn), so the B probes
 * of a task are B different episodes, as a curriculum's probes must be; greedy would play one
 * episode B times. Low, because the bundled policy is small and its second choices are mostly
 * wrong (models/README.md has its pass rate at this setting).
 */
export const ONNX_POLICY_TEMPERATURE = 0.3;

function listFromEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** scripted, the bundled ONNX policy, and the specs in `TERRARIUM_POLICIES` (comma-separated). */
export function availablePolicies(env: NodeJS.ProcessEnv = process.env): AvailablePolicy[] {
  const policies: AvailablePolicy[] = [
    {
      spec: 'scripted',
      label: 'Scripted baseline',
      description:
        "Replays each task's reference solution with seeded mistakes (skipped steps, unfamiliar programs, stray whitespace, copied noise); needs no model.",
    },
  ];
  const bundled = shippedOnnxSpec(BUNDLED_POLICY_FOLDER);
  if (bundled !== null)
    policies.push({
      spec: bundled,
      label: 'terrarium-policy-tiny (bundled ONNX)',
      description:
        'A small byte-level model trained here to imitate the scripted policy from its prompt, run on the server with onnxruntime-node.',
    });
  for (const spec of listFromEnv(env['TERRARIUM_POLICIES'])) {
    if (policies.some((policy) => policy.spec === spec)) continue;
    policies.push({ spec, label: spec, description: `Configured in TERRARIUM_POLICIES: ${spec}.` });
  }
  return policies;
}

async function onnxPolicy(
  spec: string,
  folder: string,
  options: CurriculumDepsOptions,
): Promise<Policy> {
  // As for simulators: a server opens only the folders it lists; the CLI, for its user, any.
  if (!options.anyOnnxPath && !availablePolicies().some((policy) => policy.spec === spec))
    throw new SimulatorError(
      'policy',
      `${spec} is not a configured policy folder; the server loads only the policy folders the Curriculum page offers (add it to TERRARIUM_POLICIES)`,
    );
  const { decoder, role } = await loadedModelFolder(folder, 'policy');
  if (role.role !== 'policy')
    throw new SimulatorError(
      'policy',
      `${spec} is a world model: its config.json has no "terrarium": {"role": "policy"} (the bundled policy is models/terrarium-policy-tiny)`,
    );
  if (role.policyPromptFormat !== POLICY_PROMPT_FORMAT_VERSION)
    throw new SimulatorError(
      'policy',
      `${spec} was trained on policy prompt format ${String(role.policyPromptFormat)}; this Terrarium writes format ${POLICY_PROMPT_FORMAT_VERSION}`,
    );
  return decoderPolicy({ decoder, name: spec, temperature: ONNX_POLICY_TEMPERATURE });
}

/**
 * `scripted`, `onnx:PATH` (a policy model folder, run with onnxruntime-node) or `openai:URL#MODEL`
 * (an OpenAI-compatible endpoint with tool calling).
 */
export async function curriculumPolicy(
  spec: string,
  options: CurriculumDepsOptions = {},
): Promise<Policy> {
  if (spec === 'scripted') return scriptedPolicy();
  if (spec.startsWith('onnx:') && spec.length > 'onnx:'.length)
    return onnxPolicy(spec, spec.slice('onnx:'.length), options);
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
    `"${spec}" is not a policy; expected scripted, onnx:PATH or openai:URL#MODEL`,
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
      const found = await findDataset(store, dataset, 'dataset', [BUILTIN_DATASET]);
      // Retrieval leaves out the trajectory the task came from: with it in, retrieval would be
      // replay of the very episode the task reconstructs.
      const exclude = task.provenance.trajectory;
      return datasetSimulator(
        store,
        parsed.kind,
        found.id,
        parsed.kind === 'retrieval' && exclude !== null
          ? { leaveOut: { excludeTrajectory: exclude } }
          : {},
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
