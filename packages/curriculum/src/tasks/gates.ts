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
): Promise<{ evaluation: Evaluation; world: World }> {
  const world = createWorld(task.world, seed);
  await world.reset();
  const episode = startEpisode(world);
  for (const action of solution) {
    const move = moveFromSolution(world, action);
    await applyMove(episode, move);
    if (episode.submitted) break;
  }
  return {
    evaluation: await evaluateVerifier(task.verifier, world, answerOf(episode), options),
    world,
  };
}

function failedChecks(evaluation: Evaluation): string {
  const failed = evaluation.breakdown.filter((check) => !check.passed);
  return failed.map((check) => `${check.name} (${check.detail})`).join('; ');
}

function passedChecks(evaluation: Evaluation): string {
  return evaluation.breakdown
    .filter((check) => check.passed)
    .map((check) => check.name)
    .join('; ');
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
  gates.push({
    gate: 'oracle-passes',
    ok: oracle.evaluation.passed,
    evaluation: oracle.evaluation,
    reason: oracle.evaluation.passed
      ? ''
      : `the oracle solution fails the verifier: ${failedChecks(oracle.evaluation)}`,
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
    reason: evaluation.passed
      ? `${what} passes the verifier (reward ${evaluation.reward.toFixed(2)}; passing: ${passedChecks(evaluation)})`
      : '',
  };
}
