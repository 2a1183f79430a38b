import type { BenchItem, BenchTurn, Observation } from '@terrarium/schema';
import { benchItemId } from './build-bench';

/**
 * Closed loop (BenchRunMode `closed`, k steps): the simulator starts from the real history k turns
 * before the item and rolls forward on its own predictions; the item is then predicted and scored
 * after that history. An item already holds every earlier transition of its trajectory, so the
 * earlier turns are derived from it (`itemAtTurn`); no other item is needed, and predictions are
 * keyed by 0-based turn index within the item's trajectory.
 */

/** The item as it stood at an earlier turn: that turn's action and real observation, the history before it. */
export function itemAtTurn(item: BenchItem, turnIndex: number): BenchItem {
  const turn = item.history[turnIndex];
  if (turn === undefined) {
    throw new RangeError(`turn ${turnIndex} is not in the history of item ${item.id}`);
  }
  const history = item.history.slice(0, turnIndex);
  return {
    ...item,
    id: benchItemId(item.context, history, turn.action),
    origin: { ...item.origin, stepIndex: null },
    turnIndex: item.turnIndex - (item.history.length - turnIndex),
    history,
    action: turn.action,
    real: turn.observation,
  };
}

/** History turns (0-based within the item's history) whose observations the simulator must predict. */
export function closedLoopTurns(item: Pick<BenchItem, 'history'>, steps: number): number[] {
  const start = Math.max(0, item.history.length - steps);
  return Array.from({ length: item.history.length - start }, (_, i) => start + i);
}

/**
 * The item's history with the real observations of its last `steps` turns replaced by the
 * simulator's predictions for those turns (a turn without a prediction keeps its real observation;
 * `closedLoopTurns` says which are needed).
 */
export function closedLoopHistory(
  item: Pick<BenchItem, 'history'>,
  predictionsOfEarlierTurns: ReadonlyMap<number, Observation>,
  steps: number,
): BenchTurn[] {
  const start = Math.max(0, item.history.length - steps);
  return item.history.map((turn, i) => {
    const predicted = i >= start ? predictionsOfEarlierTurns.get(i) : undefined;
    return predicted === undefined ? turn : { action: turn.action, observation: predicted };
  });
}

/**
 * Runs the roll-out with an injected predictor: predicts the last `steps` turns in order, each on
 * the history built so far, and returns the predictions and the closed-loop history for the item.
 */
export async function rollOut(
  item: BenchItem,
  steps: number,
  predict: (at: BenchItem, history: BenchTurn[]) => Promise<Observation>,
): Promise<{ predictions: Map<number, Observation>; history: BenchTurn[] }> {
  const predictions = new Map<number, Observation>();
  const turns = closedLoopTurns(item, steps);
  const start = turns[0] ?? item.history.length;
  for (const turn of turns) {
    const at = itemAtTurn(item, turn);
    predictions.set(turn, await predict(at, closedLoopHistory(at, predictions, turn - start)));
  }
  return { predictions, history: closedLoopHistory(item, predictions, steps) };
}
