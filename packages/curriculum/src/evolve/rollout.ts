import type { StepProvenance } from '@terrarium/executable-worlds';
import { scoreContentClasses, type HistoryTurn } from '@terrarium/fidelity';
import type { Action } from '@terrarium/schema';
import {
  answeredOrThrow,
  type SimContext,
  type Transition,
  type WorldModel,
} from '@terrarium/worlds';
import { answerOf, applyMove, startEpisode, type AgentMove } from '../tasks/episode';
import type { WorldFactory } from '../tasks/gates';
import type { Task } from '../tasks/task';
import { evaluateVerifier, type Evaluation } from '../tasks/verifier';
import type { Policy } from './policy';
import { randomFor } from './random';
import { noiseOf, noisyObservation } from './world-source';

export interface RolloutStep {
  /** The shell line / query, `submit …`, or the reason a move was invalid. */
  action: string;
  /** What the executable world returned. */
  observation: string;
  /** What the policy saw when it differs (a noisy screen, a simulator's prediction); else null. */
  seen: string | null;
  exitCode: number | null;
  provenance: StepProvenance | null;
  /** In a simulated rollout: the simulator's answer to this action, beside the world's. */
  simulated: SimulatedStep | null;
}

/** A simulator's answer to an action, against what the executable world returned for it. */
export interface SimulatedStep {
  predicted: string;
  /** The two differ (trailing whitespace aside). */
  diverged: boolean;
  /**
   * The content-class score of the prediction against the world's output (fidelity's
   * `scoreContentClasses`, the benches' content score), given the episode's earlier real steps.
   * Null when the simulator gave no answer (a miss or an error): a failed prediction is not scored.
   */
  contentScore: number | null;
}

export interface Rollout {
  taskId: string;
  seed: number;
  steps: RolloutStep[];
  answer: string;
  /** Moves made (acting and submitting). */
  turns: number;
  truncated: boolean;
  evaluation: Evaluation;
}

/**
 * What stands in for the executable world's observations in a simulated rollout: a world model
 * given the task as its context and the episode's simulated history.
 */
export interface RolloutSimulator {
  model: WorldModel;
  context: SimContext;
}

export interface SimulatedRollout extends Rollout {
  /** Steps whose simulated observation differs from what the world returned for the action. */
  divergentSteps: number;
}

function actionText(move: AgentMove & { kind: 'act' }): string {
  return move.action.type === 'command' ? move.action.command : JSON.stringify(move.action);
}

/** Trailing whitespace aside: a simulator that drops a final newline has not diverged. */
function sameObservation(a: string, b: string): boolean {
  return a.trimEnd() === b.trimEnd();
}

/**
 * One episode of a policy on a task, scored by the task's verifier. Without a simulator the policy
 * sees the world's observations (through the task's noise, if any). With one, the simulator's
 * predictions stand in for them: the policy sees only predictions, the world still executes every
 * action (so state checks read the state those actions really leave), and an answer taken from the
 * last output is the last *predicted* output, as a policy trained in the simulator would submit.
 */
export async function rollout(
  task: Task,
  policy: Policy,
  createWorld: WorldFactory,
  seed: number,
): Promise<Rollout> {
  return play(task, policy, createWorld, seed, null);
}

export async function simulatedRollout(
  task: Task,
  policy: Policy,
  createWorld: WorldFactory,
  seed: number,
  simulator: RolloutSimulator,
): Promise<SimulatedRollout> {
  return play(task, policy, createWorld, seed, simulator);
}

async function play(
  task: Task,
  policy: Policy,
  createWorld: WorldFactory,
  seed: number,
  simulator: RolloutSimulator | null,
): Promise<SimulatedRollout> {
  // The task's world as the gates checked it (seed 0); `seed` drives the policy's choices.
  const world = createWorld(task.world, 0);
  const first = await world.reset();
  const episode = startEpisode(world);
  const agent = policy.start(task, world, seed);
  const noise = noiseOf(task.world);
  const noiseRandom = noise > 0 ? randomFor(seed, 'noise') : null;
  const history: Transition[] = [];
  // The episode as the world played it: what content scoring treats as already seen.
  const realHistory: HistoryTurn[] = [];
  const steps: RolloutStep[] = [];
  let observation = first.content;
  let simulatedOutput = '';
  let divergentSteps = 0;
  let turns = 0;
  while (!episode.submitted && turns < task.maxSteps) {
    const move = await agent.next(observation);
    turns += 1;
    const result = await applyMove(episode, move);
    if (move.kind === 'act') {
      const executed = result?.observation.content ?? '';
      const action = actionText(move);
      let shown = executed;
      let simulated: SimulatedStep | null = null;
      if (simulator !== null) {
        const answer = await predicted(simulator, history, move.action);
        shown = answer.text;
        history.push({
          action: move.action,
          observation: { kind: 'terminal', content: shown, callId: null },
        });
        simulatedOutput = shown;
        const diverged = !sameObservation(shown, executed);
        if (diverged) divergentSteps += 1;
        simulated = {
          predicted: shown,
          diverged,
          contentScore: answer.failed
            ? null
            : scoreContentClasses(shown, executed, realHistory, action).score,
        };
      }
      realHistory.push({ action, observation: executed });
      observation = noiseRandom === null ? shown : noisyObservation(shown, noise, noiseRandom);
      steps.push({
        action,
        observation: executed,
        seen: observation === executed ? null : observation,
        exitCode: result?.exitCode ?? null,
        provenance: result?.provenance ?? null,
        simulated,
      });
    } else if (move.kind === 'submit') {
      steps.push({
        action: `submit${move.answer === null ? '' : ` ${move.answer}`}`,
        observation: '',
        seen: null,
        exitCode: null,
        provenance: null,
        simulated: null,
      });
    } else {
      observation = `invalid move: ${move.reason}`;
      steps.push({
        action: 'invalid',
        observation,
        seen: null,
        exitCode: null,
        provenance: null,
        simulated: null,
      });
    }
  }
  const answer = simulator === null ? answerOf(episode) : (episode.answer ?? simulatedOutput);
  return {
    taskId: task.id,
    seed,
    steps,
    answer,
    turns,
    truncated: !episode.submitted,
    evaluation: await evaluateVerifier(task.verifier, world, answer),
    divergentSteps,
  };
}

/** What the policy is shown for a simulated step; `failed` when the simulator gave no answer. */
async function predicted(
  simulator: RolloutSimulator,
  history: Transition[],
  action: Action,
): Promise<{ text: string; failed: boolean }> {
  try {
    // A miss (replay or retrieval with no answer) holds an empty text nothing predicted.
    const prediction = answeredOrThrow(
      await simulator.model.predict(simulator.context, history, action, { temperature: 0 }),
    );
    return { text: prediction.observation.content, failed: false };
  } catch (error) {
    // A simulator that fails on a step is a divergence the report should show, not a crash.
    const why = error instanceof Error ? error.message : String(error);
    return { text: `simulator error: ${why}`, failed: true };
  }
}
