import type { BenchItem } from '@terrarium/schema';
import { agentWorldBenchLine, itemRowTurns, type RowTurn } from './records';

/**
 * The trajectory an item was taken from. Items imported from an AgentWorldBench file do not name
 * one, but every item of a trajectory starts with its first transition: items sharing the task and
 * first transition are taken as one trajectory. (Distinct trajectories that begin alike are merged;
 * for retrieval that only leaves more out, and the export checks that turns really extend.)
 */
export function itemTrajectoryKey(item: BenchItem): string {
  if (item.origin.dataset !== null && item.origin.trajectory !== null) {
    return item.origin.trajectory;
  }
  const first = item.history[0];
  const opening =
    first === undefined ? [item.action, item.real] : [first.action, first.observation];
  return `imported\u0000${item.task}\u0000${JSON.stringify(opening)}`;
}

function startsWith(turns: readonly RowTurn[], prefix: readonly RowTurn[]): boolean {
  return (
    turns.length >= prefix.length &&
    prefix.every(
      (turn, i) => turns[i]?.prompt === turn.prompt && turns[i]?.response === turn.response,
    )
  );
}

/**
 * Rows are grouped by the recorded trajectory: an imported row names its file's turn lists, so rows
 * of two runs that begin alike never lend each other their later turns.
 */
function keyOf(item: BenchItem): string {
  return item.origin.trajectory ?? itemTrajectoryKey(item);
}

/**
 * Every item as an AgentWorldBench JSONL line (no newline), in the given order. Each row carries
 * the full turn lists of its trajectory as far as the bench knows it: the turns of the longest item
 * of the same trajectory that extends this one (AgentWorldBench sampling takes the last turn, so
 * for a built bench that is the whole run). An exported file imported again therefore exports to
 * the same bytes.
 */
export function agentWorldBenchExportLines(items: readonly BenchItem[]): string[] {
  const own = items.map((item) => itemRowTurns(item));
  const longest = new Map<string, RowTurn[][]>();
  items
    .map((item, i) => ({ key: keyOf(item), turns: own[i] ?? [] }))
    .toSorted((a, b) => b.turns.length - a.turns.length)
    .forEach(({ key, turns }) => {
      const known = longest.get(key) ?? [];
      if (!known.some((longer) => startsWith(longer, turns))) known.push(turns);
      longest.set(key, known);
    });
  return items.map((item, i) => {
    const turns = own[i] ?? [];
    const full = longest.get(keyOf(item))?.find((t) => startsWith(t, turns));
    return agentWorldBenchLine(item, full);
  });
}
