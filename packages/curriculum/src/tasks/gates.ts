import type { World } from '@terrarium/executable-worlds';
import { answerOf, applyMove, moveFromSolution, startEpisode } from './episode';
import type { SolutionAction, Task, WorldRef } from './task';
import { evaluateVerifier, type Evaluation, type VerifierOptions } from './verifier';

export type GateName =
  'oracle-passes' | 'empty-fails' | 'noop-fails' | 'initial-fails' | 'world-needed';

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

/**
 * A world of the same kind as `ref`'s with nothing in it (the `world-needed` gate runs the oracle
 * there), or undefined when its kind has none.
 */
export type EmptyWorldFactory = (ref: WorldRef) => World | undefined;

/** Runs a solution in a fresh world, then submits (the last output is the answer). */
export async function runSolution(
  task: Task,
  createWorld: WorldFactory,
  solution: SolutionAction[],
  seed = 0,
  options: VerifierOptions = {},
): Promise<{ evaluation: Evaluation; world: World; steps: number }> {
  return runSolutionIn(createWorld(task.world, seed), task, solution, options);
}

async function runSolutionIn(
  world: World,
  task: Task,
  solution: SolutionAction[],
  options: VerifierOptions,
): Promise<{ evaluation: Evaluation; world: World; steps: number }> {
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
 * Given `emptyWorld` (a world of the same kind with nothing in it), the oracle must not get its
 * answer there when that answer is one computed over nothing (the digest of no input, a count of
 * 0): the rebuilt world then lacks what the task is about (InterCode's `$files` unset, a /testbed
 * that was never seen), and the task rewards printing a constant. Answers an empty world also
 * gives but that are no such value (`seq 1 10`, arithmetic) are tasks that need no files.
 */
export async function runGates(
  task: Task,
  createWorld: WorldFactory,
  seed = 0,
  options: VerifierOptions = {},
  emptyWorld?: EmptyWorldFactory,
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
  const nothing = emptyWorld?.(task.world);
  if (nothing !== undefined) gates.push(await worldNeeded(task, nothing, options));

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

/**
 * What commands print over no input at all: the MD5, SHA-1, SHA-256 and SHA-512 digests of the
 * empty string (as `md5sum` and friends print them, with or without their `  -`), and a count or
 * sum of 0.
 */
const ANSWER_OF_NOTHING =
  /^(?:d41d8cd98f00b204e9800998ecf8427e|da39a3ee5e6b4b0d3255bfef95601890afd80709|e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855|cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e)(?:\s+-)?$|^0$/;

/**
 * Whether the oracle, run in a world with nothing in it, still gets an answer computed over
 * nothing right. Only answer checks count (a task that writes a file may well pass in an empty
 * world; the other gates see to its checks).
 */
async function worldNeeded(
  task: Task,
  empty: World,
  options: VerifierOptions,
): Promise<GateResult> {
  const { evaluation } = await runSolutionIn(empty, task, task.oracle, options);
  const answered = task.verifier.checks.flatMap(({ check }, index) =>
    check.kind === 'answer-equals' &&
    ANSWER_OF_NOTHING.test(check.expected.trim()) &&
    evaluation.breakdown[index]?.passed === true
      ? [check.expected]
      : [],
  );
  const [expected] = answered;
  return {
    gate: 'world-needed',
    ok: expected === undefined,
    evaluation,
    reason:
      expected === undefined
        ? ''
        : `the oracle gives the expected answer (${JSON.stringify(expected.slice(0, 80))}) in an empty world too, a value computed over nothing: the rebuilt world lacks what the task is about`,
  };
}
