import { createTerminalWorld, type TerminalWorld } from '@terrarium/executable-worlds';
import type { Step, Trajectory } from '@terrarium/schema';
import { runGates, type GateReport } from './gates';
import { Task, type WeightedCheck } from './task';

export interface TerminalTaskSource {
  trajectory: Trajectory;
  /** The catalog id under which the caller serves `buildWorld`'s worlds. */
  worldId: string;
  /** A fresh reconstructed world of this trajectory (the state before the agent acted). */
  buildWorld: () => TerminalWorld;
  /** At most this many file checks (the rest of a big diff is left out). */
  maxFileChecks?: number;
  /** Task ids are this prefix + the trajectory's external id (default `traj.`). */
  taskIdPrefix?: string;
}

export type GeneratedTask =
  | { ok: true; task: Task; report: GateReport }
  | { ok: false; trajectory: string; reason: string; task?: Task; report?: GateReport };

function commandOf(step: Step): string | null {
  if (step.action.type === 'command') return step.action.command;
  if (step.action.type === 'tool_call') {
    const args = step.action.arguments;
    if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      const command = args['command'] ?? args['cmd'];
      if (typeof command === 'string') return command;
    }
  }
  return null;
}

/** The first step the source scored as solving the task (InterCode: reward 1), else the last step. */
function oracleEnd(trajectory: Trajectory): number | null {
  const solved = trajectory.steps.findIndex((step) => step.reward !== null && step.reward >= 1);
  if (solved >= 0) return solved;
  if (trajectory.outcome.success === true && trajectory.steps.length > 0)
    return trajectory.steps.length - 1;
  return null;
}

function fileMap(world: TerminalWorld): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of world.files()) files.set(path, world.readFile(path) ?? '');
  return files;
}

/**
 * A task from a successful terminal trajectory: the recorded goal; as oracle the agent's own
 * commands up to the step the source scored as solved; as verifier what that oracle leaves behind
 * when replayed in the reconstructed world (the last command's output, which must equal the
 * recorded one, and every file it created, changed or removed). Then the gates decide.
 */
export async function taskFromTerminalTrajectory(
  source: TerminalTaskSource,
): Promise<GeneratedTask> {
  const { trajectory } = source;
  const externalId = trajectory.externalId;
  const reject = (reason: string): GeneratedTask => ({ ok: false, trajectory: externalId, reason });
  if (trajectory.task === null || trajectory.task.trim() === '')
    return reject('the trajectory records no goal');
  const end = oracleEnd(trajectory);
  if (end === null) return reject('the trajectory never solved its task, so it has no oracle');
  const steps = trajectory.steps.slice(0, end + 1);
  const commands: string[] = [];
  for (const step of steps) {
    const command = commandOf(step);
    if (command === null) continue;
    if (/^submit\b/.test(command.trim())) break;
    commands.push(command);
  }
  if (commands.length === 0) return reject('the solving steps contain no command');

  const world = source.buildWorld();
  await world.reset();
  // Where the agent started: an empty world (to check the answer needs this one) starts there too.
  const startCwd = world.cwd();
  // The baseline is the world after a harmless command, not before any: a shell may materialize
  // files on first use (command stubs under /bin), and those are no effect of the oracle.
  const baseline = world.fork();
  await baseline.step({ type: 'command', command: 'true', interpreter: 'bash' });
  const before = fileMap(baseline);
  let lastOutput = '';
  for (const [index, command] of commands.entries()) {
    const result = await world.step({ type: 'command', command, interpreter: 'bash' });
    if (result.provenance !== 'executed') {
      return reject(
        `oracle command ${index} (${JSON.stringify(command)}) is not executable here (${result.provenance})`,
      );
    }
    lastOutput = result.observation.content;
  }
  const recorded = steps[steps.length - 1]?.observation?.content ?? null;
  if (recorded !== null && recorded !== lastOutput) {
    return reject(
      `the reconstructed world does not reproduce the recorded output of step ${end}: expected ${JSON.stringify(recorded.slice(0, 120))}, got ${JSON.stringify(lastOutput.slice(0, 120))}`,
    );
  }

  const checks: WeightedCheck[] = [
    { weight: 1, check: { kind: 'answer-equals', expected: lastOutput, normalize: 'lines' } },
  ];
  const after = fileMap(world);
  const maxFileChecks = source.maxFileChecks ?? 20;
  const fileChecks: WeightedCheck[] = [];
  for (const [path, content] of after) {
    if (before.get(path) !== content) {
      fileChecks.push({ weight: 1, check: { kind: 'file-equals', path, content } });
    }
  }
  for (const path of before.keys()) {
    if (!after.has(path))
      fileChecks.push({ weight: 1, check: { kind: 'file-exists', path, exists: false } });
  }
  checks.push(...fileChecks.slice(0, maxFileChecks));

  const task = Task.parse({
    id: `${source.taskIdPrefix ?? 'traj.'}${externalId}`.replace(/[^A-Za-z0-9._:-]+/g, '-'),
    goal: trajectory.task,
    world: { id: source.worldId, params: {} },
    verifier: { checks },
    oracle: [...commands, 'submit'],
    noop: ['true', 'submit'],
    maxSteps: Math.max(10, commands.length * 3),
    provenance: {
      source: trajectory.sourceBenchmark ?? trajectory.sourceFormat,
      trajectory: externalId,
      steps: steps.map((step) => step.index),
      note: `oracle: the agent's commands through step ${end}; expected output reproduced by the reconstructed world`,
    },
  });
  // The same commands in a world with nothing in it: an answer they also give there, computed over
  // nothing, says the rebuilt world lacks what the task is about (gates.ts, `world-needed`).
  const report = await runGates(
    task,
    () => source.buildWorld(),
    0,
    {},
    () => createTerminalWorld(`${task.id}:empty`, { cwd: startCwd, env: {}, entries: [] }),
  );
  if (!report.accepted)
    return { ok: false, trajectory: externalId, reason: report.reasons.join('; '), task, report };
  return { ok: true, task, report };
}
