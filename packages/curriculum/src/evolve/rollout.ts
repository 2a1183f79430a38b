import type { StepProvenance } from '@terrarium/executable-worlds';
import { answerOf, applyMove, startEpisode } from '../tasks/episode';
import type { WorldFactory } from '../tasks/gates';
import type { Task } from '../tasks/task';
import { evaluateVerifier, type Evaluation } from '../tasks/verifier';
import type { Policy } from './policy';

export interface RolloutStep {
  /** The shell line / query, `submit …`, or the reason a move was invalid. */
  action: string;
  observation: string;
  exitCode: number | null;
  provenance: StepProvenance | null;
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

/** One episode of a policy on a task, scored by the task's verifier. */
export async function rollout(
  task: Task,
  policy: Policy,
  createWorld: WorldFactory,
  seed: number,
): Promise<Rollout> {
  // The task's world as the gates checked it (seed 0); `seed` drives the policy's choices.
  const world = createWorld(task.world, 0);
  const first = await world.reset();
  const episode = startEpisode(world);
  const agent = policy.start(task, world, seed);
  const steps: RolloutStep[] = [];
  let observation = first.content;
  let turns = 0;
  while (!episode.submitted && turns < task.maxSteps) {
    const move = await agent.next(observation);
    turns += 1;
    const result = await applyMove(episode, move);
    if (move.kind === 'act') {
      observation = result?.observation.content ?? '';
      steps.push({
        action: move.action.type === 'command' ? move.action.command : JSON.stringify(move.action),
        observation,
        exitCode: result?.exitCode ?? null,
        provenance: result?.provenance ?? null,
      });
    } else if (move.kind === 'submit') {
      steps.push({
        action: `submit${move.answer === null ? '' : ` ${move.answer}`}`,
        observation: '',
        exitCode: null,
        provenance: null,
      });
    } else {
      observation = `invalid move: ${move.reason}`;
      steps.push({ action: 'invalid', observation, exitCode: null, provenance: null });
    }
  }
  const answer = answerOf(episode);
  return {
    taskId: task.id,
    seed,
    steps,
    answer,
    turns,
    truncated: !episode.submitted,
    evaluation: await evaluateVerifier(task.verifier, world, answer),
  };
}
