import { lcsLength, levenshtein } from './bit-parallel';

/**
 * Keeping long pairs cheap. Exact bit-parallel DP costs n·m/32; above `EXACT_CELLS` cells we align
 * in pieces instead:
 *   1. strip the common prefix and suffix (exact, and usually most of a near-copy);
 *   2. anchor on units (tokens, or words for characters) that occur exactly once in each side, keeping
 *      the longest increasing run of them (patience diff), and recurse into the gaps between anchors;
 *   3. a gap still too large and without anchors is split into equal diagonal blocks solved exactly
 *      (a band around the diagonal).
 * All pieces of one comparison share a budget of TOTAL_CELLS cells, so no pair costs more than that.
 * Every step is a valid alignment, so the LCS found is a lower bound of the true LCS and the edit
 * distance an upper bound of the true distance. Both are exact whenever n·m ≤ EXACT_CELLS, and in
 * practice for near-copies (their differences sit between unique anchors); two long unrelated texts
 * get a banded estimate, which is what the 20 KB ≤ 5 ms goal buys.
 */
export const EXACT_CELLS = 2_000_000;
/** Cells one whole comparison may spend on exact DP, summed over all its pieces (about 2-4 ms). */
export const TOTAL_CELLS = 4_000_000;
const MAX_DEPTH = 8;

/** Cells still allowed for this comparison. */
interface Budget {
  cells: number;
}

function spend(budget: Budget, range: Range): void {
  budget.cells -= (range.aEnd - range.aStart) * (range.bEnd - range.bStart);
}

function affordable(budget: Budget, range: Range): boolean {
  const cells = (range.aEnd - range.aStart) * (range.bEnd - range.bStart);
  return cells <= EXACT_CELLS && cells <= budget.cells;
}

interface Range {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Anchors: pairs (i in a, j in b) of units unique on both sides, increasing in both. */
function uniqueAnchors(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  range: Range,
): { i: number; j: number }[] {
  const countA = new Map<number, number>();
  const positionA = new Map<number, number>();
  for (let i = range.aStart; i < range.aEnd; i++) {
    const symbol = a[i] ?? 0;
    countA.set(symbol, (countA.get(symbol) ?? 0) + 1);
    positionA.set(symbol, i);
  }
  const countB = new Map<number, number>();
  const positionB = new Map<number, number>();
  for (let j = range.bStart; j < range.bEnd; j++) {
    const symbol = b[j] ?? 0;
    countB.set(symbol, (countB.get(symbol) ?? 0) + 1);
    positionB.set(symbol, j);
  }
  const pairs: { i: number; j: number }[] = [];
  for (const [symbol, count] of countA) {
    if (count !== 1 || countB.get(symbol) !== 1) continue;
    const i = positionA.get(symbol);
    const j = positionB.get(symbol);
    if (i !== undefined && j !== undefined) pairs.push({ i, j });
  }
  pairs.sort((x, y) => x.i - y.i);
  const keep = increasingRun(pairs.map((pair) => pair.j));
  return pairs.filter((_, index) => keep[index]);
}

/** Marks the members of one longest strictly increasing subsequence (O(n log n)); -1 entries never. */
export function increasingRun(values: readonly number[]): boolean[] {
  const tails: number[] = [];
  const tailIndex: number[] = [];
  const previous = new Int32Array(values.length).fill(-1);
  values.forEach((value, index) => {
    if (value < 0) return;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((tails[middle] ?? 0) < value) low = middle + 1;
      else high = middle;
    }
    tails[low] = value;
    tailIndex[low] = index;
    previous[index] = low > 0 ? (tailIndex[low - 1] ?? -1) : -1;
  });
  const member = Array.from({ length: values.length }, () => false);
  let index = tailIndex[tails.length - 1] ?? -1;
  while (index >= 0) {
    member[index] = true;
    index = previous[index] ?? -1;
  }
  return member;
}

function stripCommon(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  range: Range,
): { matched: number; inner: Range } {
  let { aStart, aEnd, bStart, bEnd } = range;
  let matched = 0;
  while (aStart < aEnd && bStart < bEnd && a[aStart] === b[bStart]) {
    aStart++;
    bStart++;
    matched++;
  }
  while (aEnd > aStart && bEnd > bStart && a[aEnd - 1] === b[bEnd - 1]) {
    aEnd--;
    bEnd--;
    matched++;
  }
  return { matched, inner: { aStart, aEnd, bStart, bEnd } };
}

/** The ranges between consecutive anchors (anchors themselves are matched units). */
function gapsBetween(anchors: readonly { i: number; j: number }[], range: Range): Range[] {
  const gaps: Range[] = [];
  let i = range.aStart;
  let j = range.bStart;
  for (const anchor of [...anchors, { i: range.aEnd, j: range.bEnd }]) {
    if (anchor.i > i || anchor.j > j)
      gaps.push({ aStart: i, aEnd: anchor.i, bStart: j, bEnd: anchor.j });
    i = anchor.i + 1;
    j = anchor.j + 1;
  }
  return gaps;
}

/**
 * Equal slices along the diagonal: k slices cost n·m/k cells in all, so k is chosen to fit the budget
 * (a band around the diagonal; when the budget is gone the slices shrink towards single units).
 */
function diagonalPieces(range: Range, budget: Budget): Range[] {
  const n = range.aEnd - range.aStart;
  const m = range.bEnd - range.bStart;
  const allowed = Math.max(1, Math.min(EXACT_CELLS, budget.cells));
  // Slices of fewer than 16 units on a side cost more in overhead than they find.
  const count = Math.max(
    1,
    Math.min(Math.floor(Math.min(n, m) / 16), Math.ceil((n * m) / allowed)),
  );
  return Array.from({ length: count }, (_, k) => ({
    aStart: range.aStart + Math.floor((n * k) / count),
    aEnd: range.aStart + Math.floor((n * (k + 1)) / count),
    bStart: range.bStart + Math.floor((m * k) / count),
    bEnd: range.bStart + Math.floor((m * (k + 1)) / count),
  }));
}

/** LCS length of two id sequences; exact for n·m ≤ EXACT_CELLS, a lower bound above (see top). */
export function boundedLcs(a: Int32Array, b: Int32Array): number {
  const budget = { cells: TOTAL_CELLS };
  const exact = (r: Range) => {
    spend(budget, r);
    return lcsLength(a.subarray(r.aStart, r.aEnd), b.subarray(r.bStart, r.bEnd));
  };
  const solve = (range: Range, depth: number): number => {
    const { matched, inner } = stripCommon(a, b, range);
    if (affordable(budget, inner)) return matched + exact(inner);
    if (budget.cells <= 0) return matched;
    const anchors = depth < MAX_DEPTH ? uniqueAnchors(a, b, inner) : [];
    if (anchors.length === 0) return matched + sum(diagonalPieces(inner, budget).map(exact));
    return (
      matched +
      anchors.length +
      sum(gapsBetween(anchors, inner).map((gap) => solve(gap, depth + 1)))
    );
  };
  return solve({ aStart: 0, aEnd: a.length, bStart: 0, bEnd: b.length }, 0);
}

/** Levenshtein distance; exact for n·m ≤ EXACT_CELLS, an upper bound above (see top). */
export function boundedLevenshtein(first: string, second: string): number {
  let prefix = 0;
  const shorter = Math.min(first.length, second.length);
  while (prefix < shorter && first.charCodeAt(prefix) === second.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    first.charCodeAt(first.length - 1 - suffix) === second.charCodeAt(second.length - 1 - suffix)
  )
    suffix++;
  const a = first.slice(prefix, first.length - suffix);
  const b = second.slice(prefix, second.length - suffix);
  const budget = { cells: TOTAL_CELLS };
  const whole = { aStart: 0, aEnd: a.length, bStart: 0, bEnd: b.length };
  if (affordable(budget, whole)) return levenshtein(a, b);
  // Anchoring works on units (words and separator runs); distances are computed on their characters.
  const ids = new Map<string, number>();
  const unitsA = unitsOf(a, ids);
  const unitsB = unitsOf(b, ids);
  const exact = (chars: Range): number => {
    spend(budget, chars);
    return levenshtein(a.slice(chars.aStart, chars.aEnd), b.slice(chars.bStart, chars.bEnd));
  };
  const solve = (units: Range, depth: number): number => {
    const { inner } = stripCommon(unitsA.ids, unitsB.ids, units);
    const chars = {
      aStart: unitsA.offsets[inner.aStart] ?? a.length,
      aEnd: unitsA.offsets[inner.aEnd] ?? a.length,
      bStart: unitsB.offsets[inner.bStart] ?? b.length,
      bEnd: unitsB.offsets[inner.bEnd] ?? b.length,
    };
    if (affordable(budget, chars)) return exact(chars);
    const longer = Math.max(chars.aEnd - chars.aStart, chars.bEnd - chars.bStart);
    if (budget.cells <= 0) return longer;
    const anchors = depth < MAX_DEPTH ? uniqueAnchors(unitsA.ids, unitsB.ids, inner) : [];
    if (anchors.length === 0)
      return Math.min(longer, sum(diagonalPieces(chars, budget).map(exact)));
    return sum(gapsBetween(anchors, inner).map((gap) => solve(gap, depth + 1)));
  };
  const distance = solve(
    { aStart: 0, aEnd: unitsA.ids.length, bStart: 0, bEnd: unitsB.ids.length },
    0,
  );
  return Math.min(distance, Math.max(a.length, b.length));
}

function isSeparator(code: number): boolean {
  // whitespace/control, " ' ( ) , : ; [ ] { }
  return (
    code <= 32 ||
    code === 34 ||
    code === 39 ||
    code === 40 ||
    code === 41 ||
    code === 44 ||
    code === 58 ||
    code === 59 ||
    code === 91 ||
    code === 93 ||
    code === 123 ||
    code === 125
  );
}

/** Unit ids (runs of separators and runs of other characters) and each unit's start, plus the end. */
function unitsOf(text: string, ids: Map<string, number>): { ids: Int32Array; offsets: Int32Array } {
  const symbols: number[] = [];
  const offsets: number[] = [];
  let start = 0;
  while (start < text.length) {
    const separator = isSeparator(text.charCodeAt(start));
    let end = start + 1;
    while (end < text.length && isSeparator(text.charCodeAt(end)) === separator) end++;
    const unit = text.slice(start, end);
    let id = ids.get(unit);
    if (id === undefined) {
      id = ids.size;
      ids.set(unit, id);
    }
    symbols.push(id);
    offsets.push(start);
    start = end;
  }
  offsets.push(text.length);
  return { ids: Int32Array.from(symbols), offsets: Int32Array.from(offsets) };
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
