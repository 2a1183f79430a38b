/**
 * Exact bit-parallel dynamic programming: 32 cells of the DP matrix per machine word, so the cost is
 * n·m/32 simple operations. Callers bound n·m (see anchored.ts) to keep that cheap.
 */

/** LCS length of two sequences of symbol ids (Allison–Dix / Hyyrö recurrence). */
export function lcsLength(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  if (n === 0 || b.length === 0) return 0;
  const words = Math.ceil(n / 32);
  // One flat table of match masks, a row per distinct symbol of `a` (no allocation per symbol).
  const rows = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const symbol = a[i] ?? 0;
    if (!rows.has(symbol)) rows.set(symbol, rows.size * words);
  }
  const masks = new Uint32Array(rows.size * words);
  for (let i = 0; i < n; i++) {
    const at = (rows.get(a[i] ?? 0) ?? 0) + (i >>> 5);
    masks[at] = ((masks[at] ?? 0) | (1 << (i & 31))) >>> 0;
  }
  const v = new Uint32Array(words).fill(0xffffffff);
  for (let j = 0; j < b.length; j++) {
    const row = rows.get(b[j] ?? 0);
    // A symbol absent from `a` leaves the column unchanged.
    if (row === undefined) continue;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const vw = v[w] ?? 0;
      const mw = masks[row + w] ?? 0;
      const sum = vw + ((vw & mw) >>> 0) + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      v[w] = ((sum >>> 0) | (vw & ~mw)) >>> 0;
    }
  }
  let zeros = 0;
  for (let i = 0; i < n; i++) if ((((v[i >>> 5] ?? 0) >>> (i & 31)) & 1) === 0) zeros++;
  return zeros;
}

const peq = new Int32Array(0x10000);

/** Levenshtein distance between UTF-16 strings (Myers 1999, Hyyrö's block form for long strings). */
export function levenshtein(first: string, second: string): number {
  // The shorter string goes in the bit vectors.
  const a = first.length <= second.length ? first : second;
  const b = first.length <= second.length ? second : first;
  if (a.length === 0) return b.length;
  return a.length <= 32 ? levenshteinShort(a, b) : levenshteinBlocks(a, b);
}

function levenshteinShort(a: string, b: string): number {
  const n = a.length;
  const last = 1 << (n - 1);
  let pv = -1;
  let mv = 0;
  let score = n;
  for (let i = 0; i < n; i++) peq[a.charCodeAt(i)] = (peq[a.charCodeAt(i)] ?? 0) | (1 << i);
  for (let j = 0; j < b.length; j++) {
    const eq = peq[b.charCodeAt(j)] ?? 0;
    const xv = eq | mv;
    const xh = ((((eq & pv) + pv) | 0) ^ pv) | eq;
    let ph = mv | ~(xh | pv);
    let mh = pv & xh;
    if (ph & last) score++;
    if (mh & last) score--;
    ph = (ph << 1) | 1;
    mh = mh << 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
  }
  for (let i = 0; i < n; i++) peq[a.charCodeAt(i)] = 0;
  return score;
}

function levenshteinBlocks(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  const blocks = Math.ceil(n / 32);
  // Horizontal deltas along the bottom of the current block row, one bit per column of b.
  const hPositive = new Int32Array(Math.ceil(m / 32)).fill(-1);
  const hNegative = new Int32Array(Math.ceil(m / 32));
  let score = 0;
  for (let block = 0; block < blocks; block++) {
    const start = block * 32;
    const end = Math.min(start + 32, n);
    for (let k = start; k < end; k++)
      peq[a.charCodeAt(k)] = (peq[a.charCodeAt(k)] ?? 0) | (1 << (k - start));
    let pv = -1;
    let mv = 0;
    const last = 1 << (end - start - 1);
    score = end;
    for (let j = 0; j < m; j++) {
      const word = j >>> 5;
      const bit = j & 31;
      const pb = ((hPositive[word] ?? 0) >>> bit) & 1;
      const mb = ((hNegative[word] ?? 0) >>> bit) & 1;
      const eq = peq[b.charCodeAt(j)] ?? 0;
      const xv = eq | mv;
      const xh = (((((eq | mb) & pv) + pv) | 0) ^ pv) | eq | mb;
      let ph = mv | ~(xh | pv);
      let mh = pv & xh;
      if (ph & last) score++;
      if (mh & last) score--;
      if (((ph >>> 31) ^ pb) & 1) hPositive[word] = (hPositive[word] ?? 0) ^ (1 << bit);
      if (((mh >>> 31) ^ mb) & 1) hNegative[word] = (hNegative[word] ?? 0) ^ (1 << bit);
      ph = (ph << 1) | pb;
      mh = (mh << 1) | mb;
      pv = mh | ~(xv | ph);
      mv = ph & xv;
    }
    for (let k = start; k < end; k++) peq[a.charCodeAt(k)] = 0;
  }
  return score;
}
