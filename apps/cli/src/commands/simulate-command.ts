import {
  findDataset,
  findTrajectory,
  MAX_SIMULATED_STEPS,
  officialProtocolSimulator,
  SimulatorError,
  type PromptFolder,
  simulateTrajectory,
  SimulateParams,
} from '@terrarium/api';
import {
  plural,
  SimSpec,
  SimulationResult,
  type Action,
  type SimulatedStep,
} from '@terrarium/schema';
import { CliError } from '../cli-error';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { authHeaders, errorMessageOf } from '../server-client';
import { promptsOption } from './bench-command';

export interface SimulateCommandOptions extends GlobalOptions {
  dataset: string;
  trajectory?: string;
  sim: string;
  maxSteps?: number;
  json?: boolean;
  /** A folder laid out like the official AgentWorldBench `prompts/` (openai: simulators). */
  prompts?: string;
}

/** `--max-steps` help: the server's cap, which the command applies in-process too. */
export const MAX_STEPS_HELP = `simulate at most this many transitions (default and most: ${MAX_SIMULATED_STEPS})`;

/**
 * `--max-steps` checked by the schema the server checks `maxSteps` with, in its words. A number
 * past 2^53 breaks `int()` too; the server names only the tighter bound, and so does this.
 */
function checkedMaxSteps(maxSteps: number | undefined): number {
  const checked = SimulateParams.shape.maxSteps.safeParse(maxSteps);
  if (checked.success) return checked.data ?? MAX_SIMULATED_STEPS;
  const bound = (issue: (typeof checked.error.issues)[number]) =>
    issue.code === 'too_big' ? Number(issue.maximum) : Number.NEGATIVE_INFINITY;
  const [tightest] = checked.error.issues.toSorted((a, b) => bound(a) - bound(b));
  throw new CliError(`--max-steps: ${tightest?.message ?? 'invalid'}`);
}

/** `terrarium simulate`: a simulator open loop over one stored trajectory, scored per transition. */
export async function runSimulate(options: SimulateCommandOptions): Promise<void> {
  const sim = SimSpec.safeParse(options.sim);
  if (!sim.success) {
    throw new CliError(
      `--sim ${options.sim}: expected replay, retrieval, onnx:PATH or openai:URL#MODEL`,
    );
  }
  // The cap is sent even to a server (which would apply the same default), so both paths run the
  // same number of transitions.
  const params: SimulateParams = {
    dataset: options.dataset,
    sim: sim.data,
    ...(options.trajectory === undefined ? {} : { trajectory: options.trajectory }),
    maxSteps: checkedMaxSteps(options.maxSteps),
  };
  const prompts = await promptsOption(options.prompts);
  const target = await connect(options);
  let result: SimulationResult;
  try {
    result = await simulateOn(target, params, prompts);
  } finally {
    await disconnect(target);
  }
  if (options.json) process.stdout.write(`${JSON.stringify(jsonOutput(result))}\n`);
  else process.stdout.write(simulationTable(result));
  // Every prediction failed (an unreachable endpoint, a missing key): nothing was simulated, and
  // a script must not read the run as a success.
  if (result.steps.length > 0 && result.steps.every((step) => step.error !== null))
    process.exitCode = 1;
}

async function simulateOn(
  target: DataTarget,
  params: SimulateParams,
  prompts: PromptFolder | null,
): Promise<SimulationResult> {
  if (target.kind === 'server') {
    if (prompts !== null) {
      throw new CliError(
        '--prompts: the data folder is held by a running server; stop it to simulate with --prompts',
      );
    }
    return simulateThroughServer(target.url, target.token, params);
  }
  try {
    const dataset = await findDataset(target.store, params.dataset, '--dataset');
    const trajectory = await findTrajectory(
      target.store,
      dataset,
      params.trajectory,
      '--trajectory',
    );
    return await simulateTrajectory(target.store, trajectory.id, params.sim, {
      anyOnnxPath: true,
      ...(prompts === null
        ? {}
        : { simulator: officialProtocolSimulator(params.sim, trajectory, prompts) }),
      maxSteps: params.maxSteps ?? MAX_SIMULATED_STEPS,
    });
  } catch (error) {
    if (error instanceof SimulatorError) throw new CliError(error.message);
    throw error;
  }
}

/** The data folder is held by `terrarium serve`: the server runs the simulation. */
async function simulateThroughServer(
  serverUrl: string,
  token: string,
  params: SimulateParams,
): Promise<SimulationResult> {
  const response = await fetch(new URL('/api/simulate', serverUrl), {
    method: 'POST',
    headers: { ...authHeaders(token), 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    throw new CliError(
      `the server at ${serverUrl} refused the simulation (${response.status}): ${errorMessageOf(body)}`,
    );
  }
  const result = SimulationResult.safeParse(body);
  if (!result.success) throw new CliError(`unexpected answer from ${serverUrl}/api/simulate`);
  return result.data;
}

export interface SimulateJsonOutput {
  trajectory: string;
  sim: string;
  steps: (Pick<
    SimulatedStep,
    'step' | 'actor' | 'provenance' | 'latencyMs' | 'scores' | 'error'
  > & { real: string; predicted: string })[];
}

/** `--json`: one entry per transition, observations as their content strings. */
export function jsonOutput(result: SimulationResult): SimulateJsonOutput {
  return {
    trajectory: result.trajectory,
    sim: result.sim,
    steps: result.steps.map((step) => ({
      step: step.step,
      actor: step.actor,
      real: step.real.content,
      predicted: step.predicted.content,
      provenance: step.provenance,
      latencyMs: step.latencyMs,
      scores: step.scores,
      error: step.error,
    })),
  };
}

const MAX_ACTION_WIDTH = 40;

function actionLabel(action: Action): string {
  const text =
    action.type === 'tool_call' || action.type === 'browser'
      ? action.name
      : action.type === 'command'
        ? action.command
        : action.type === 'keystrokes'
          ? action.keys
          : action.text;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_ACTION_WIDTH ? `${line.slice(0, MAX_ACTION_WIDTH - 1)}…` : line;
}

/** On 0-100 with one decimal, as Compare and the bench pages show scores. */
function score(value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : (value * 100).toFixed(1);
}

function mean(values: (number | null | undefined)[]): number | null {
  const present = values.filter((value): value is number => typeof value === 'number');
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length;
}

function row(step: SimulatedStep): string[] {
  const exact = step.scores['exact-match'];
  return [
    // Steps counted from 1, as the replay and Compare pages count them (JSON keeps the index).
    String(step.step + 1),
    actionLabel(step.action),
    step.error === null ? (exact === 1 ? 'yes' : 'no') : 'error',
    score(step.scores['token-f1']),
    score(step.scores['content']),
    // A failed prediction's time is how long it took to fail, not a latency: none, as in the UI.
    step.error === null ? `${step.latencyMs.toFixed(1)} ms` : '-',
  ];
}

/** The human output: a table per transition and a mean line. */
export function simulationTable(result: SimulationResult): string {
  const header = ['step', 'tool/command', 'exact?', 'token F1', 'content', 'latency'];
  const rows = result.steps.map(row);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((cells) => (cells[column] ?? '').length)),
  );
  const numeric = new Set([0, 3, 4, 5]);
  const render = (cells: string[]) =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? cell.length;
        return numeric.has(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  // A failed prediction is neither counted as simulated nor averaged in (its scores are empty).
  const steps = result.steps.filter((step) => step.error === null);
  const exact = steps.filter((step) => step.scores['exact-match'] === 1).length;
  const errors = result.steps.filter((step) => step.error !== null);
  const lines = [
    `${result.sim} on trajectory ${result.trajectory}: ${plural(result.steps.length, 'transition')}, ` +
      `${steps.length} simulated, ${errors.length} failed`,
    render(header),
    ...rows.map(render),
    steps.length === 0
      ? 'mean: none, every prediction failed (nothing was scored)'
      : `mean over ${steps.length} simulated: exact ${exact}/${steps.length}, token F1 ${score(mean(steps.map((s) => s.scores['token-f1'])))}, ` +
        `content ${score(mean(steps.map((s) => s.scores['content'])))}, ` +
        `latency ${(mean(steps.map((s) => s.latencyMs)) ?? 0).toFixed(1)} ms`,
    ...errors.map((step) => `step ${step.step + 1} failed: ${step.error ?? ''}`),
  ];
  return `${lines.join('\n')}\n`;
}
