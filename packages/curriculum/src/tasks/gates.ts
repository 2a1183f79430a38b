import type { World } from '@terrarium/executable-worlds';
import { answerOf, applyMove, moveFromSolution, startEpisode } from './episode';
import type { SolutionAction, Task, WorldRef } from './task';
import { evaluateVerifier, type Evaluation, type VerifierOptions } from './verifier';

export type GateName = 'oracle-passes' | 'empty-fails' | 'noop-fails' | 'initial-fails';

export interface GateResult {
  gate: GateName;
  ok: boolean;
  evaluation: Evaluation;
  /** Why the gate failed, in words a task author can act on; empty when it held. */
  reason: string;
}

export interface GateReport {
  taskId: string;
  accepted: boolean;
  gates: GateResult[];
  /** One line per failed gate. */
  reasons: string[];
}

export type WorldFactory = (ref: WorldRef, seed: number) => World;

/** Runs a solution in a fresh world, then submits (the last output is the answer). */
export async function runSolution(
  task: Task,
  createWorld: WorldFactory,
  solution: SolutionAction[],
  seed = 0,
  options: VerifierOptions = {},
): Promise<{ evaluation: Evaluation; world: World; steps: number }> {
  const world = createWorld(task.world, seed);
  await world.reset();
  const episode = startEpisode(world);
  let steps = 0;
  for (const action of solution) {
    const move = moveFromSolution(world, action);
    await applyMove(episode, move);
    steps++;
    if (episode.submitted) break;
  }
  return {
    evaluation: await evaluateVerifier(task.verifier, world, answerOf(episode), options),
    world,
    // A session counts the submit as a step; a solution that does not submit still needs one.
    steps: episode.submitted ? steps : steps + 1,
  };
}

function failedChecks(evaluation: Evaluation): string {
  const failed = evaluation.breakdown.filter((check) => !check.passed);
  return failed.map((check) => `${check.name} (${check.detail})`).join('; ');
}

/** The reward, and the checks that held (none can: a pass threshold of 0 passes anything). */
function whyPassed(evaluation: Evaluation): string {
  const passing = evaluation.breakdown.filter((check) => check.passed).map((check) => check.name);
  const reward = `reward ${evaluation.reward.toFixed(2)}`;
  return passing.length === 0
    ? `${reward}, with no check holding: the pass threshold lets it through`
    : `${reward}; passing: ${passing.join('; ')}`;
}

/**
 * The gates every task passes before use: its oracle solution passes, and the empty solution
 * (submit at once, no answer), a no-op solution and the untouched initial world (its first
 * observation as the answer) all fail. A verifier that any of those pass rewards doing nothing.
 */
export async function runGates(
  task: Task,
  createWorld: WorldFactory,
  seed = 0,
  options: VerifierOptions = {},
): Promise<GateReport> {
  const gates: GateResult[] = [];
  const oracle = await runSolution(task, createWorld, task.oracle, seed, options);
  // A session truncates the episode at maxSteps: an oracle that needs more steps shows a task
  // nobody can solve through the environment server, however well its verifier is made.
  const fits = oracle.steps <= task.maxSteps;
  gates.push({
    gate: 'oracle-passes',
    ok: oracle.evaluation.passed && fits,
    evaluation: oracle.evaluation,
    reason: !oracle.evaluation.passed
      ? `the oracle solution fails the verifier: ${failedChecks(oracle.evaluation)}`
      : fits
        ? ''
        : `the oracle solution takes ${oracle.steps} steps (its submit included), more than maxSteps (${task.maxSteps}): a session would truncate it`,
  });
  const empty = await runSolution(
    task,
    createWorld,
    [{ tool: 'submit', arguments: { answer: '' } }],
    seed,
    options,
  );
  gates.push(mustFail('empty-fails', empty.evaluation, 'the empty solution'));
  const noop = await runSolution(task, createWorld, task.noop, seed, options);
  gates.push(
    mustFail('noop-fails', noop.evaluation, `the no-op solution (${JSON.stringify(task.noop)})`),
  );

  const initialWorld = createWorld(task.world, seed);
  const firstObservation = await initialWorld.reset();
  const initial = await evaluateVerifier(
    task.verifier,
    initialWorld,
    firstObservation.content,
    options,
  );
  gates.push(mustFail('initial-fails', initial, 'the initial world'));

  const reasons = gates.filter((gate) => !gate.ok).map((gate) => gate.reason);
  return { taskId: task.id, accepted: reasons.length === 0, gates, reasons };
}

function mustFail(gate: GateName, evaluation: Evaluation, what: string): GateResult {
  return {
    gate,
    ok: !evaluation.passed,
    evaluation,
    reason: evaluation.passed ? `${what} passes the verifier (${whyPassed(evaluation)})` : '',
  };
}
