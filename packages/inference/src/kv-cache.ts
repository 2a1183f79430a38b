import type { ModelConfig } from './model-config';

/** The part of an onnxruntime tensor the decoder reads (onnxruntime-node and -web tensors both fit). */
export interface TensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
}

/** Makes a tensor of the session's own runtime, e.g. `(t, d, s) => new ort.Tensor(t, d, s)`. */
export type TensorFactory = {
  (type: 'int64', data: BigInt64Array, dims: number[]): TensorLike;
  (type: 'float32', data: Float32Array, dims: number[]): TensorLike;
};

/**
 * The attention cache of one decode: what a model run reads as `past_key_values.N.key/value` and
 * how the run's outputs extend it.
 */
export interface DecoderCache {
  /** The `past_key_values` feeds of the next run. */
  feeds(): Record<string, TensorLike>;
  /** The outputs a run returns: the logits and what `append` reads. */
  readonly fetches: readonly string[];
  /** Takes a run's outputs over `added` new positions. */
  append(outputs: Record<string, TensorLike>, added: number): void;
  /** Drops every position from `positions` on (guesses that were not kept). */
  keep(positions: number): void;
}

export type CacheKind = 'held' | 'present';

/** The outputs of a run's own cache entries: `new_key_values.N.key/value`. */
export const NEW_ENTRIES = 'new_key_values';

const entryNames = (prefix: string, layers: number): string[] =>
  Array.from({ length: layers }, (_, layer) => [
    `${prefix}.${layer}.key`,
    `${prefix}.${layer}.value`,
  ]).flat();

/**
 * `held` when the model returns its run's own cache entries (`new_key_values.N.key/value`, which
 * models/tiny_gpt.py exports beside `present`), else `present`: the whole cache as the model
 * returns it (the Optimum layout, what other exporters write).
 */
export function cacheKindOf(outputNames: readonly string[], config: ModelConfig): CacheKind {
  const names = new Set(outputNames);
  return entryNames(NEW_ENTRIES, config.layers).every((name) => names.has(name))
    ? 'held'
    : 'present';
}

export function createCache(
  kind: CacheKind,
  config: ModelConfig,
  tensor: TensorFactory,
): DecoderCache {
  return kind === 'held' ? new HeldCache(config, tensor) : new PresentCache(config, tensor);
}

export function float32Data(output: TensorLike | undefined, what: string): Float32Array {
  if (output === undefined || !(output.data instanceof Float32Array)) {
    throw new Error(`the model returned no float32 ${what}`);
  }
  return output.data;
}

/**
 * The cache in arrays of its own, one per entry, sized for the whole context once and extended in
 * place: a run returns only its new positions. In onnxruntime-web every output of a run is a new
 * JavaScript array, and in Chromium here allocating and filling the whole cache's copy at every
 * run (1.5 MB at 300 positions) was about half of a decoding step (benchmarks/README.md).
 *
 * An entry's positions are laid out as the model reads them, `[heads, length, width]`, so a feed
 * is a view of the array's start; growing or cutting moves each head's block to its new place.
 */
class HeldCache implements DecoderCache {
  readonly fetches: readonly string[];
  private length = 0;
  private readonly pastNames: string[];
  private readonly newNames: string[];
  private readonly heads: number;
  private readonly width: number;
  private readonly arrays: Float32Array[];

  constructor(
    private readonly config: ModelConfig,
    private readonly tensor: TensorFactory,
  ) {
    this.pastNames = entryNames('past_key_values', config.layers);
    this.newNames = entryNames(NEW_ENTRIES, config.layers);
    this.fetches = ['logits', ...this.newNames];
    this.heads = config.kvHeads;
    this.width = config.headDim;
    // Only the positions written are ever touched: the rest of each array costs address space.
    // Arrays sized to what the decode can reach (a fifth of this for the Models page's example),
    // or grown by doubling, made the page's decoding 20% slower in Chromium here, measured
    // alternating builds (probably its allocator: smaller arrays zeroed when allocated, an array
    // this size zeroed page by page as it is first written).
    const size = this.heads * config.contextLength * this.width;
    this.arrays = this.pastNames.map(() => new Float32Array(size));
  }

  feeds(): Record<string, TensorLike> {
    const feeds: Record<string, TensorLike> = {};
    const used = this.heads * this.length * this.width;
    this.pastNames.forEach((name, i) => {
      const array = this.arrays[i] ?? new Float32Array(0);
      feeds[name] = this.tensor('float32', new Float32Array(array.buffer, 0, used), [
        1,
        this.heads,
        this.length,
        this.width,
      ]);
    });
    return feeds;
  }

  append(outputs: Record<string, TensorLike>, added: number): void {
    const { heads, width, length } = this;
    const grown = length + added;
    if (grown > this.config.contextLength) {
      throw new RangeError(
        `the cache would hold ${grown} positions; the context holds ${this.config.contextLength}`,
      );
    }
    this.newNames.forEach((name, i) => {
      const entry = outputs[name];
      const data = float32Data(entry, name);
      const [batch, entryHeads, positions, entryWidth] = entry?.dims ?? [];
      if (batch !== 1 || entryHeads !== heads || positions !== added || entryWidth !== width) {
        throw new Error(
          `the model returned ${name} of shape [${entry?.dims.join(', ')}], expected [1, ${heads}, ${added}, ${width}]`,
        );
      }
      const array = this.arrays[i];
      if (array === undefined) throw new Error(`the cache has no ${name}`);
      // Last head first: each block moves to a higher offset, past where the previous one lies.
      for (let head = heads - 1; head > 0; head--) {
        const from = head * length * width;
        array.copyWithin(head * grown * width, from, from + length * width);
      }
      for (let head = 0; head < heads; head++) {
        const from = head * added * width;
        array.set(data.subarray(from, from + added * width), (head * grown + length) * width);
      }
    });
    this.length = grown;
  }

  keep(positions: number): void {
    const { heads, width, length } = this;
    if (positions >= length) return;
    for (const array of this.arrays) {
      // First head first: each block moves to a lower offset.
      for (let head = 1; head < heads; head++) {
        const from = head * length * width;
        array.copyWithin(head * positions * width, from, from + positions * width);
      }
    }
    this.length = positions;
  }
}

/** The cache as the model returns it (`present.N.key/value`), cut by copying when guesses fail. */
class PresentCache implements DecoderCache {
  readonly fetches: readonly string[];
  private length = 0;
  private readonly pastNames: string[];
  private entries: Record<string, TensorLike>;

  constructor(
    config: ModelConfig,
    private readonly tensor: TensorFactory,
  ) {
    this.pastNames = entryNames('past_key_values', config.layers);
    this.fetches = ['logits', ...entryNames('present', config.layers)];
    this.entries = {};
    for (const name of this.pastNames) {
      this.entries[name] = tensor('float32', new Float32Array(0), [
        1,
        config.kvHeads,
        0,
        config.headDim,
      ]);
    }
  }

  feeds(): Record<string, TensorLike> {
    return this.entries;
  }

  append(outputs: Record<string, TensorLike>, added: number): void {
    const entries: Record<string, TensorLike> = {};
    for (const name of this.pastNames) {
      const presentName = name.replace('past_key_values', 'present');
      const value = outputs[presentName];
      if (value === undefined) throw new Error(`the model returned no ${presentName}`);
      entries[name] = value;
    }
    this.entries = entries;
    this.length += added;
  }

  keep(positions: number): void {
    if (positions >= this.length) return;
    const kept: Record<string, TensorLike> = {};
    for (const name of this.pastNames) {
      const entry = this.entries[name];
      const data = float32Data(entry, name);
      const [batch = 1, heads = 1, length = 0, width = 1] = entry?.dims ?? [];
      const cut = new Float32Array(batch * heads * positions * width);
      for (let row = 0; row < batch * heads; row++) {
        const from = row * length * width;
        cut.set(data.subarray(from, from + positions * width), row * positions * width);
      }
      kept[name] = this.tensor('float32', cut, [batch, heads, positions, width]);
    }
    this.entries = kept;
    this.length = positions;
  }
}
