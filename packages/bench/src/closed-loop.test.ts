import { describe, expect, it } from 'vitest';
import type { BenchTurn, Observation } from '@terrarium/schema';
import { buildBench } from './build-bench';
import { closedLoopHistory, closedLoopTurns, itemAtTurn, rollOut } from './closed-loop';
import { readSources } from './real-data.testkit';

const { items } = buildBench({
  trajectories: await readSources(['tau2-airline']),
  name: 'closed',
  version: 1,
  sampling: { kind: 'all' },
  seed: 1,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: [],
});
const item = items.find((candidate) => candidate.history.length === 6);
if (item === undefined) throw new Error('no item with 6 earlier turns');

function predicted(text: string): Observation {
  return { kind: 'text', content: text, callId: null };
}

describe('closed loop', () => {
  it('replaces the last k real observations by predictions, keeps the rest and the actions', () => {
    const predictions = new Map([
      [3, predicted('p3')],
      [4, predicted('p4')],
      [5, predicted('p5')],
    ]);
    const history = closedLoopHistory(item, predictions, 2);
    expect(history.map((turn) => turn.observation.content).slice(3)).toEqual([
      item.history[3]?.observation.content,
      'p4',
      'p5',
    ]);
    expect(history.map((turn) => turn.action)).toEqual(item.history.map((turn) => turn.action));
    expect(closedLoopTurns(item, 2)).toEqual([4, 5]);
    expect(closedLoopTurns(item, 10)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('derives an earlier turn from the item itself: the same id as the bench item for that turn', () => {
    const earlier = itemAtTurn(item, 4);
    const same = items.find(
      (candidate) =>
        candidate.origin.trajectory === item.origin.trajectory &&
        candidate.turnIndex === earlier.turnIndex,
    );
    expect(earlier.id).toBe(same?.id);
    expect(earlier.real).toEqual(same?.real);
    expect(earlier.history).toHaveLength(4);
  });

  it('rolls out k steps, each prediction made on the history predicted so far', async () => {
    const seen: string[][] = [];
    const { history } = await rollOut(item, 3, (at, sofar: BenchTurn[]) => {
      seen.push(sofar.slice(3).map((turn) => turn.observation.content));
      return Promise.resolve(predicted(`sim${at.history.length}`));
    });
    expect(seen).toEqual([[], ['sim3'], ['sim3', 'sim4']]);
    expect(history.slice(3).map((turn) => turn.observation.content)).toEqual([
      'sim3',
      'sim4',
      'sim5',
    ]);
  });
});
