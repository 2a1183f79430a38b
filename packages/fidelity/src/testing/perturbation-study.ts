import { scoreContentClasses } from '../content/score';
import type { ScoringItem } from '../items';
import { PERTURBATION_SEVERITY, PERTURBATIONS, perturb, type Perturbation } from '../perturbations';
import { spearman } from '../stats';

export interface PerturbationStudy {
  /** Mean content-class score per perturbation, over the items where it applies. */
  means: Record<Perturbation, number | null>;
  counts: Record<Perturbation, number>;
  /** Spearman between severity and score over every (item, perturbation) pair. */
  itemSpearman: number;
  /** Spearman between severity and the per-perturbation means. */
  meanSpearman: number;
}

/**
 * The other step: the next item (cyclically) with the same tool and a different, non-empty
 * observation; from another trajectory when one exists, so it is not an earlier echo.
 */
function otherSteps(items: readonly ScoringItem[]): (string | null)[] {
  const byTool = new Map<string, number[]>();
  items.forEach((item, i) => {
    const list = byTool.get(item.tool);
    if (list === undefined) byTool.set(item.tool, [i]);
    else list.push(i);
  });
  return items.map((item, i) => {
    const peers = byTool.get(item.tool) ?? [];
    const start = peers.indexOf(i);
    let fallback: string | null = null;
    for (let k = 1; k < peers.length; k++) {
      const peer = items[peers[(start + k) % peers.length] ?? i];
      if (peer === undefined || peer.real === item.real || peer.real.trim() === '') continue;
      if (peer.trajectoryId !== item.trajectoryId) return peer.real;
      fallback ??= peer.real;
    }
    return fallback;
  });
}

export function studyPerturbations(items: readonly ScoringItem[]): PerturbationStudy {
  const others = otherSteps(items);
  const sums = new Map<Perturbation, number>();
  const counted = new Map<Perturbation, number>();
  const severities: number[] = [];
  const scores: number[] = [];
  items.forEach((item, i) => {
    if (item.real.trim() === '') return;
    const historyText = [
      ...item.history.flatMap((turn) => [turn.action, turn.observation]),
      item.action,
    ].join('\n');
    for (const kind of PERTURBATIONS) {
      const predicted = perturb(kind, {
        real: item.real,
        historyText,
        otherStep: others[i] ?? null,
      });
      if (predicted === null) continue;
      const score = scoreContentClasses(predicted, item.real, item.history, item.action).score;
      sums.set(kind, (sums.get(kind) ?? 0) + score);
      counted.set(kind, (counted.get(kind) ?? 0) + 1);
      severities.push(PERTURBATION_SEVERITY[kind]);
      scores.push(score);
    }
  });
  const counts = perPerturbation((kind) => counted.get(kind) ?? 0);
  const means = perPerturbation((kind) => {
    const n = counted.get(kind) ?? 0;
    return n > 0 ? (sums.get(kind) ?? 0) / n : null;
  });
  const applied = PERTURBATIONS.filter((kind) => means[kind] !== null);
  return {
    means,
    counts,
    itemSpearman: spearman(severities, scores),
    meanSpearman: spearman(
      applied.map((kind) => PERTURBATION_SEVERITY[kind]),
      applied.map((kind) => means[kind] ?? 0),
    ),
  };
}

function perPerturbation<T>(value: (kind: Perturbation) => T): Record<Perturbation, T> {
  return {
    identity: value('identity'),
    'alter-timestamp': value('alter-timestamp'),
    'change-runtime-id': value('change-runtime-id'),
    'shuffle-lines': value('shuffle-lines'),
    'drop-json-key': value('drop-json-key'),
    'change-deterministic-value': value('change-deterministic-value'),
    'other-step': value('other-step'),
    empty: value('empty'),
  };
}
