/** A seeded PRNG (mulberry32): the same seed gives the same sampled tokens on every runtime. */
export function createRng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The likeliest allowed token; ties go to the lowest id, as in onnxruntime-genai and transformers. */
export function argmax(logits: Float32Array, isAllowed: (token: number) => boolean): number {
  let best = -1;
  let bestValue = -Infinity;
  for (let token = 0; token < logits.length; token++) {
    const value = logits[token] ?? -Infinity;
    if (value > bestValue && isAllowed(token)) {
      best = token;
      bestValue = value;
    }
  }
  if (best === -1) throw new Error('no token can be generated');
  return best;
}

/** Samples from softmax(logits / temperature), restricted to the `topK` likeliest when topK > 0. */
export function sampleToken(
  logits: Float32Array,
  temperature: number,
  topK: number,
  random: () => number,
  isAllowed: (token: number) => boolean,
): number {
  let candidates: number[] = [];
  for (let token = 0; token < logits.length; token++) if (isAllowed(token)) candidates.push(token);
  const logit = (token: number): number => logits[token] ?? -Infinity;
  if (topK > 0 && topK < candidates.length) {
    candidates = candidates.toSorted((a, b) => logit(b) - logit(a) || a - b).slice(0, topK);
  }
  const max = Math.max(...candidates.map(logit));
  const weights = candidates.map((token) => Math.exp((logit(token) - max) / temperature));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let threshold = random() * total;
  for (const [i, token] of candidates.entries()) {
    threshold -= weights[i] ?? 0;
    if (threshold <= 0) return token;
  }
  // Rounding can leave a sliver of `threshold`: the last candidate takes it.
  const last = candidates[candidates.length - 1];
  if (last === undefined) throw new Error('no token can be generated');
  return last;
}
