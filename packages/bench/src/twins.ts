import type { BenchItem } from '@terrarium/schema';
import { itemTrajectoryKey } from './agentworldbench/export-lines';
import { canonicalJson } from './hash';

/** Share of a trajectory's distinct tool calls another trajectory must make to be its twin. */
export const TWIN_SHARE = 0.5;
/** …and at least this many: one shared lookup is a coincidence, not the same task. */
export const TWIN_MIN_CALLS = 2;

function callKey(action: BenchItem['action']): string | null {
  return action.type === 'tool_call'
    ? `${action.name}\u0000${canonicalJson(action.arguments)}`
    : null;
}

/**
 * For each trajectory of a bench (by `itemTrajectoryKey`), the trajectories of other task strata
 * that make at least half of its distinct tool calls, name and arguments alike (and at least
 * two): the same task recorded by another benchmark under another name. tau2-bench's airline
 * tasks are tau-bench's, reworded, so a bench of both would let retrieval copy an item's answer
 * from its twin, which leaving out the item's own task text does not catch (15 of the 20 tau2
 * airline trajectories have a tau-bench twin by this rule, and no tau2 retail one has any).
 */
export function crossTaskTwins(items: readonly BenchItem[]): Map<string, ReadonlySet<string>> {
  const trajectories = new Map<string, { stratum: string; calls: Set<string> }>();
  for (const item of items) {
    const key = itemTrajectoryKey(item);
    let entry = trajectories.get(key);
    if (entry === undefined) {
      entry = { stratum: item.task, calls: new Set() };
      trajectories.set(key, entry);
    }
    for (const action of [...item.history.map((turn) => turn.action), item.action]) {
      const call = callKey(action);
      if (call !== null) entry.calls.add(call);
    }
  }
  const holders = new Map<string, string[]>();
  for (const [key, { calls }] of trajectories) {
    for (const call of calls) {
      const list = holders.get(call);
      if (list === undefined) holders.set(call, [key]);
      else list.push(key);
    }
  }
  const twins = new Map<string, ReadonlySet<string>>();
  for (const [key, { stratum, calls }] of trajectories) {
    const shared = new Map<string, number>();
    for (const call of calls) {
      for (const other of holders.get(call) ?? []) {
        if (other !== key && trajectories.get(other)?.stratum !== stratum) {
          shared.set(other, (shared.get(other) ?? 0) + 1);
        }
      }
    }
    const found = [...shared]
      .filter(([, count]) => count >= TWIN_MIN_CALLS && count >= TWIN_SHARE * calls.size)
      .map(([other]) => other);
    if (found.length > 0) twins.set(key, new Set(found));
  }
  return twins;
}
