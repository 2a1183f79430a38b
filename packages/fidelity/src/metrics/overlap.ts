import { boundedLcs, boundedLevenshtein } from '../align/anchored';

/** F1 of two token multisets. Both empty → 1 (nothing to say, nothing said). */
export function multisetF1(predicted: readonly string[], real: readonly string[]): number {
  if (predicted.length === 0 && real.length === 0) return 1;
  if (predicted.length === 0 || real.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const token of real) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common++;
      counts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / real.length;
  return (2 * precision * recall) / (precision + recall);
}

/** ROUGE-L F1 (β = 1) over token sequences; the LCS is exact up to 2M token pairs (align/anchored.ts). */
export function rougeL(predicted: readonly string[], real: readonly string[]): number {
  if (predicted.length === 0 && real.length === 0) return 1;
  if (predicted.length === 0 || real.length === 0) return 0;
  const ids = new Map<string, number>();
  const toIds = (tokens: readonly string[]) =>
    Int32Array.from(tokens, (token) => {
      let id = ids.get(token);
      if (id === undefined) {
        id = ids.size;
        ids.set(token, id);
      }
      return id;
    });
  const lcs = boundedLcs(toIds(real), toIds(predicted));
  if (lcs === 0) return 0;
  const precision = lcs / predicted.length;
  const recall = lcs / real.length;
  return (2 * precision * recall) / (precision + recall);
}

/** 1 − Levenshtein / longer length. Both empty → 1. */
export function editSimilarity(predicted: string, real: string): number {
  const longer = Math.max(predicted.length, real.length);
  if (longer === 0) return 1;
  return 1 - boundedLevenshtein(predicted, real) / longer;
}

export function lengthRatio(predicted: string, real: string): number {
  const longer = Math.max(predicted.length, real.length);
  return longer === 0 ? 1 : Math.min(predicted.length, real.length) / longer;
}
