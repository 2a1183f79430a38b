import {
  isTransition,
  type Action,
  type BenchItem,
  type Observation,
  type Step,
  type Trajectory,
} from '@terrarium/schema';
import type { SimContext, Transition } from './world-model';

/** The inputs of one prediction, taken from a recorded trajectory, with what really came back. */
export interface PredictionInput {
  /** Index of the step (in `trajectory.steps`) whose observation is predicted. */
  stepIndex: number;
  /** Position among the trajectory's transitions (0-based). */
  transitionIndex: number;
  context: SimContext;
  history: Transition[];
  action: Action;
  expected: Observation;
}

export function simContextOf(trajectory: Trajectory): SimContext {
  return {
    domain: trajectory.domain,
    task: trajectory.task,
    systemPrompt: trajectory.systemPrompt,
    tools: trajectory.tools,
  };
}

/** What a simulator is told of a bench item's task: the same fields `simContextOf` reads. */
export function simContextOfItem(item: Pick<BenchItem, 'domain' | 'context'>): SimContext {
  return {
    domain: item.domain,
    task: item.context.task,
    systemPrompt: item.context.systemPrompt,
    tools: item.context.tools,
  };
}

export function transitionOf(step: Step): Transition | null {
  if (!isTransition(step) || step.observation === null) return null;
  return { action: step.action, observation: step.observation };
}

/** The trajectory's transitions in order, each with the index of its step. */
export function transitionsOf(
  trajectory: Trajectory,
): { stepIndex: number; transition: Transition }[] {
  const transitions: { stepIndex: number; transition: Transition }[] = [];
  trajectory.steps.forEach((step, stepIndex) => {
    const transition = transitionOf(step);
    if (transition !== null) transitions.push({ stepIndex, transition });
  });
  return transitions;
}

/**
 * Every transition of the trajectory as a prediction input: the history holds only the earlier
 * transitions (messages between agent and user are not environment output), in order.
 */
export function* predictionInputs(trajectory: Trajectory): Generator<PredictionInput> {
  const context = simContextOf(trajectory);
  const transitions = transitionsOf(trajectory);
  const history: Transition[] = [];
  for (const [transitionIndex, { stepIndex, transition }] of transitions.entries()) {
    yield {
      stepIndex,
      transitionIndex,
      context,
      history: history.slice(),
      action: transition.action,
      expected: transition.observation,
    };
    history.push(transition);
  }
}

/** The prediction input at step `stepIndex`, or null when that step is not a transition. */
export function predictionInputAt(
  trajectory: Trajectory,
  stepIndex: number,
): PredictionInput | null {
  for (const input of predictionInputs(trajectory)) {
    if (input.stepIndex === stepIndex) return input;
    if (input.stepIndex > stepIndex) return null;
  }
  return null;
}
