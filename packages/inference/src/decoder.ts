import { Anchor, type AnchorOption } from './anchor';
import { CycleWatch } from './cycle';
import {
  cacheKindOf,
  createCache,
  float32Data,
  NEW_ENTRIES,
  type DecoderCache,
  type TensorFactory,
  type TensorLike,
} from './kv-cache';
import type { ModelConfig } from './model-config';
import { JsonPrefix } from './json-prefix';
import { lookaheadDraft } from './lookahead';
import { argmax, createRng, sampleToken } from './sampling';
import { byteTokenizer, type TextTokenizer } from './tokenizer';

export type { TensorFactory, TensorLike } from './kv-cache';

/**
 * The part of an onnxruntime `InferenceSession` the decoder uses; the caller creates the session
 * (onnxruntime-node on the server, onnxruntime-web in the browser), so this code runs in both.
 * `fetches`: the outputs to return.
 */
export interface InferenceSessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(
    feeds: Record<string, TensorLike>,
    fetches: readonly string[],
  ): Promise<Record<string, TensorLike>>;
}

/**
 * `session` as the decoder sees a model without the run's own cache entries among its outputs:
 * it then reads the whole cache back (`present`) at every run. For comparing the two ways.
 */
export function withWholeCache(session: InferenceSessionLike): InferenceSessionLike {
  return {
    inputNames: session.inputNames,
    outputNames: session.outputNames.filter((name) => !name.startsWith(`${NEW_ENTRIES}.`)),
    run: (feeds, fetches) => session.run(feeds, fetches),
  };
}

export interface GenerateOptions {
  /** Tokens to generate at most (default 128); also bounded by the context length. */
  maxTokens?: number;
  /** 0 (default) decodes greedily. */
  temperature?: number;
  /** Sample among the k likeliest tokens only; 0 (default) means all. */
  topK?: number;
  /** Seed of the sampling RNG (default 0), so a sampled decode repeats too. */
  seed?: number;
  /** Decoding ends before the first occurrence of any of these; the stop text is not returned. */
  stop?: readonly string[];
  signal?: AbortSignal;
  /** Called with each piece of text as soon as it can no longer turn into a stop string. */
  onToken?: (text: string) => void;
  /** False recomputes the whole sequence at every step (for tests and benchmarks). Default true. */
  useCache?: boolean;
  /**
   * Greedy decoding with the cache only: up to this many next tokens are guessed from the text so
   * far (`lookaheadDraft`) and run through the model with the current one; each guess is kept only
   * while it is the token greedy decoding picks there, so the output is the same, in fewer model
   * runs. 0 turns guessing off. Default 8.
   */
  lookahead?: number;
  /**
   * `json`: only tokens that keep the output a prefix of one JSON value are generated, EOS only once
   * the value is whole, and an output the token budget cuts is closed (`closing`).
   * `json-if-opened`: free text, unless the output's first non-blank character opens an object or
   * an array; from then on as `json`. Both need a tokenizer whose tokens are bytes (`canConstrain`).
   */
  grammar?: Grammar;
  /**
   * A reference answer to lean on (`Anchor`): the token that continues it gets `bias` nats more
   * than the model gives it, greedy or sampled. Needs a tokenizer whose tokens are bytes. A
   * reference longer than what the context leaves after the prompt is the output as it is
   * (finish reason `reference`), unless `maxTokens` stops the output sooner than the context.
   */
  anchor?: AnchorOption;
  /**
   * Default true: an output that starts writing one span of tokens back to back (`CycleWatch`:
   * three copies or more, covering 48 tokens) ends there, finish reason `cycle`. With an anchor,
   * the output is then cut back to where it first left the reference and ends with the rest of
   * the reference (`referenceTail`): the model has lost its place, and the reference is what
   * retrieval would answer. Unless that would not fit the budget (or not be one JSON value where
   * the output is held to JSON); then, and without an anchor, the output is closed like one the
   * budget cuts. So that nothing streamed is taken back, with an anchor the text after the first
   * place the output leaves the reference reaches onToken only when decoding ends. False lets a
   * cycle run on, as the model alone would.
   */
  stopCycles?: boolean;
}

export type Grammar = 'json' | 'json-if-opened';

/**
 * Why a decode ended. `reference`: the anchor's reference is the output, whole and unwritten by
 * the model, because the context could not hold it (`GenerateOptions.anchor`). `cycle`: the output
 * began repeating one span back to back (`GenerateOptions.stopCycles`).
 */
export const FINISH_REASONS = ['eos', 'stop', 'length', 'context', 'reference', 'cycle'] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

export interface GenerateResult {
  /** The output, `closing` included. */
  text: string;
  /** Generated token ids, the EOS excluded. */
  tokens: number[];
  /** What a grammar appended to an output the budget cut, to make it whole ('' otherwise). */
  closing: string;
  /**
   * The anchor's reference from where the output first left it, which ends an output cut back
   * there at a cycle (`GenerateOptions.stopCycles`); '' otherwise. Part of `text`, not of `tokens`.
   */
  referenceTail: string;
  /** Whether the output was held to JSON (always with `json`; once opened with `json-if-opened`). */
  heldToJson: boolean;
  promptTokens: number;
  finishReason: FinishReason;
}

export interface Decoder {
  readonly config: ModelConfig;
  readonly tokenizer: TextTokenizer;
  /** `prompt` is text (encoded with `tokenizer`) or token ids. */
  generate(prompt: string | readonly number[], options?: GenerateOptions): Promise<GenerateResult>;
}

export interface DecoderOptions {
  session: InferenceSessionLike;
  config: ModelConfig;
  tensor: TensorFactory;
  /** Default: the byte tokenizer of Terrarium models. */
  tokenizer?: TextTokenizer;
}

const DEFAULT_MAX_TOKENS = 128;
/**
 * A run of the bundled model over 9 tokens costs 1.5-2 runs over one in onnxruntime-web and about
 * one in onnxruntime-node (most of a step is fixed cost: graph nodes, the cache passed in and out),
 * while copied spans usually run longer than 8 tokens.
 */
const DEFAULT_LOOKAHEAD = 8;

function int64(values: readonly number[]): BigInt64Array {
  return BigInt64Array.from(values, (value) => BigInt(value));
}

export function createDecoder({
  session,
  config,
  tensor,
  tokenizer = byteTokenizer,
}: DecoderOptions): Decoder {
  const hasPositionIds = session.inputNames.includes('position_ids');
  const eos = new Set(config.eosTokenIds);
  const cacheKind = cacheKindOf(session.outputNames, config);

  /**
   * Runs `ids` (positions from `start`) after the `start` positions `cache` holds; returns the
   * logits of every position (`vocabSize` each, in order). With `extend`, the cache then holds the
   * run's positions too.
   */
  async function step(
    ids: readonly number[],
    start: number,
    cache: DecoderCache,
    extend: boolean,
  ): Promise<Float32Array> {
    const total = start + ids.length;
    const feeds: Record<string, TensorLike> = {
      ...cache.feeds(),
      input_ids: tensor('int64', int64(ids), [1, ids.length]),
      attention_mask: tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
    };
    if (hasPositionIds) {
      const positions = ids.map((_, i) => start + i);
      feeds.position_ids = tensor('int64', int64(positions), [1, ids.length]);
    }
    const outputs = await session.run(feeds, extend ? cache.fetches : ['logits']);
    if (extend) cache.append(outputs, ids.length);
    const logits = float32Data(outputs.logits, 'logits');
    if (logits.length !== ids.length * config.vocabSize) {
      throw new Error(
        `the model returned ${logits.length} logits for ${ids.length} positions of ${config.vocabSize}`,
      );
    }
    return logits;
  }

  async function generate(
    prompt: string | readonly number[],
    options: GenerateOptions = {},
  ): Promise<GenerateResult> {
    const promptIds = typeof prompt === 'string' ? tokenizer.encode(prompt) : [...prompt];
    if (promptIds.length === 0) throw new RangeError('the prompt is empty');
    if (promptIds.length >= config.contextLength) {
      throw new RangeError(
        `the prompt has ${promptIds.length} tokens; the context holds ${config.contextLength}`,
      );
    }
    const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    const temperature = options.temperature ?? 0;
    const useCache = options.useCache ?? true;
    const lookahead = useCache && temperature === 0 ? (options.lookahead ?? DEFAULT_LOOKAHEAD) : 0;
    const stops = (options.stop ?? []).filter((stop) => stop.length > 0);
    // Text that could still be the start of a stop string is held back from onToken.
    const holdBack = Math.max(0, ...stops.map((stop) => stop.length - 1));
    const random = createRng(options.seed ?? 0);
    const pieces = tokenizer.streamDecoder(promptIds);
    const signal = options.signal;

    if (options.grammar !== undefined && !canConstrain(tokenizer)) {
      throw new Error('JSON-constrained decoding needs a tokenizer whose tokens are bytes');
    }
    let grammar = options.grammar === 'json' ? new JsonPrefix() : null;
    // With `json-if-opened`, whether the output is JSON is decided by its first non-blank byte.
    let undecided = options.grammar === 'json-if-opened';
    /** Whether the grammar (if any) lets this token come next. */
    const fits = (token: number): boolean => {
      if (grammar === null) return true;
      if (eos.has(token)) return grammar.isComplete();
      // A whole value ends the output: only EOS may follow.
      if (grammar.isComplete()) return false;
      const bytes = tokenizer.tokenBytes(token);
      return bytes !== undefined && grammar.clone().accept(bytes);
    };
    const [eosToken] = config.eosTokenIds;
    const anchor =
      options.anchor === undefined || options.anchor.bias <= 0 || eosToken === undefined
        ? null
        : new Anchor(options.anchor.text, tokenizer, eosToken);
    const anchorBias = options.anchor?.bias ?? 0;
    const contextLeft = config.contextLength - promptIds.length;
    if (
      anchor !== null &&
      options.anchor !== undefined &&
      maxTokens >= contextLeft &&
      tokenizer.encode(options.anchor.text).length >= contextLeft
    ) {
      // The model could write only the reference's beginning (plus its end of text) before the
      // context ends, cut where the context does: the lean would keep choosing the reference's
      // next token all along, so the reference is the answer, whole. On the held-out tool answers
      // such cuts had scored below the reference they were copying.
      const stopAt = firstStop(options.anchor.text, stops);
      const whole = stopAt === -1 ? options.anchor.text : options.anchor.text.slice(0, stopAt);
      options.onToken?.(whole);
      return {
        text: whole,
        tokens: [],
        closing: '',
        referenceTail: '',
        heldToJson: grammar !== null,
        promptTokens: promptIds.length,
        finishReason: stopAt === -1 ? 'reference' : 'stop',
      };
    }
    const sequence = [...promptIds];
    const tokens: number[] = [];
    let text = '';
    let emitted = 0;
    const cache = createCache(cacheKind, config, tensor);
    let pending: readonly number[] = promptIds;
    const cycles = (options.stopCycles ?? true) ? new CycleWatch() : null;
    /**
     * Where the output first left the anchor's reference: the text and tokens written before, and
     * the reference's byte there. Text after it is held back from onToken until decoding ends, so
     * that an output that runs in circles can still become the reference without taking back
     * anything streamed.
     */
    let departure: { text: number; tokens: number; at: number } | null = null;

    const emit = (until: number): void => {
      const allowed = departure === null ? until : Math.min(until, departure.text);
      // Never cut between the two halves of a surrogate pair.
      const upTo = isHighSurrogate(text.charCodeAt(allowed - 1)) ? allowed - 1 : allowed;
      if (upTo > emitted) {
        options.onToken?.(text.slice(emitted, upTo));
        emitted = upTo;
      }
    };

    /** The next token from one position's logits: grammar, `json-if-opened` and sampling applied. */
    const pick = (logits: Float32Array): number => {
      const choose = (): number => {
        const preferred = anchor?.candidate();
        const usable = preferred !== undefined && isAllowed(preferred) && fits(preferred);
        if (temperature > 0) {
          let weighed = logits;
          if (usable) {
            weighed = Float32Array.from(logits);
            weighed[preferred] = (logits[preferred] ?? -Infinity) + anchorBias;
          }
          return sampleToken(
            weighed,
            temperature,
            options.topK ?? 0,
            random,
            (t) => isAllowed(t) && fits(t),
          );
        }
        const best = constrainedArgmax(logits, isAllowed, fits);
        if (!usable || best === preferred) return best;
        const gap = (logits[best] ?? -Infinity) - (logits[preferred] ?? -Infinity);
        return gap <= anchorBias ? preferred : best;
      };
      let next = choose();
      if (undecided && !eos.has(next)) {
        const opening = firstNonBlank(tokenizer.tokenBytes(next) ?? []);
        if (opening !== undefined) {
          undecided = false;
          if (opening === OPEN_OBJECT || opening === OPEN_ARRAY) {
            grammar = new JsonPrefix();
            // What came before is blank, which JSON allows ahead of a value.
            for (const token of tokens) grammar.accept(tokenizer.tokenBytes(token) ?? []);
            if (!fits(next)) next = choose();
          }
        }
      }
      return next;
    };

    /** Appends a picked token to the output; says why decoding ends, if it does. */
    const take = (next: number): FinishReason | null => {
      if (eos.has(next)) return 'eos';
      tokens.push(next);
      sequence.push(next);
      if (anchor !== null) {
        const wasOn = anchor.isOn();
        anchor.advance(next);
        // Only a cycle's recovery needs the place (and holds back the text after it).
        if (cycles !== null && departure === null && wasOn && !anchor.isOn()) {
          departure = { text: text.length, tokens: tokens.length - 1, at: anchor.leftAt() };
        }
      }
      const nextBytes = grammar === null ? undefined : tokenizer.tokenBytes(next);
      if (nextBytes !== undefined) grammar?.accept(nextBytes);
      text += pieces.push(next);
      const stopAt = firstStop(text, stops);
      if (stopAt !== -1) {
        text = text.slice(0, stopAt);
        return 'stop';
      }
      emit(text.length - holdBack);
      if (cycles !== null && cycles.push(next) !== null) return 'cycle';
      return tokens.length >= maxTokens ? 'length' : null;
    };

    let finished: FinishReason | null = maxTokens <= 0 ? 'length' : null;
    while (finished === null) {
      signal?.throwIfAborted();
      if (sequence.length >= config.contextLength) {
        finished = 'context';
        break;
      }
      // Guesses stay within the token budget and the context (the token after them included).
      const room = Math.min(maxTokens - tokens.length, config.contextLength - sequence.length) - 1;
      const limit = Math.min(lookahead, room);
      // On the reference, its next tokens are the likeliest guesses; off it, the text so far.
      const anchored = anchor === null ? [] : anchor.draft(limit);
      const draft = anchored.length > 0 ? anchored : lookaheadDraft(sequence, limit);
      const start = useCache ? sequence.length - pending.length : 0;
      const input = useCache ? [...pending, ...draft] : sequence;
      // Without the cache, every run starts from nothing: `cache` stays empty.
      const logits = await step(input, start, cache, useCache);
      signal?.throwIfAborted();
      // The position of the last token that is not a guess predicts the next one; while the
      // picked token is the guess at the following position, that position's logits are valid too.
      let position = input.length - draft.length - 1;
      let kept = 0;
      for (;;) {
        // A cancel from onToken lands between two tokens of one run too.
        if (kept > 0) signal?.throwIfAborted();
        const from = position * config.vocabSize;
        const next = pick(logits.subarray(from, from + config.vocabSize));
        finished = take(next);
        if (finished !== null || next !== draft[kept]) {
          pending = [next];
          break;
        }
        kept++;
        position++;
      }
      if (useCache && finished === null) cache.keep(start + input.length - draft.length + kept);
    }
    /**
     * The output cut back to where it first left the reference and ended with the rest of it; null
     * when it never left it, or the result would not fit the budget, would hold a stop string, or
     * would not be one whole JSON value where the output is held to JSON.
     */
    const recoverWithReference = (): {
      text: string;
      tokens: number;
      referenceTail: string;
    } | null => {
      if (anchor === null || departure === null) return null;
      const referenceTail = anchor.referenceFrom(departure.at);
      if (referenceTail === null) return null;
      const recovered = text.slice(0, departure.text) + referenceTail;
      const budget = Math.min(maxTokens, contextLeft) - departure.tokens;
      if (tokenizer.encode(referenceTail).length > budget) return null;
      if (firstStop(recovered, stops) !== -1) return null;
      if (grammar !== null) {
        const check = new JsonPrefix();
        if (!check.accept(new TextEncoder().encode(recovered)) || !check.isComplete()) return null;
      }
      return { text: recovered, tokens: departure.tokens, referenceTail };
    };

    const finishReason = finished;
    const tail = finishReason === 'cycle' ? recoverWithReference() : null;
    if (tail !== null) {
      // What followed the departure is dropped: it was never streamed.
      text = tail.text;
      tokens.length = tail.tokens;
    } else if (finishReason !== 'stop') text += pieces.flush();
    departure = null;
    // Text cut at a stop string is returned as cut, as OpenAI-compatible servers do: closing it
    // would invent the rest (`"": null` for an object cut inside a key).
    const closing =
      grammar === null || finishReason === 'eos' || finishReason === 'stop' || tail !== null
        ? ''
        : grammar.closing();
    text += closing;
    emit(text.length);
    return {
      text,
      tokens,
      closing,
      referenceTail: tail?.referenceTail ?? '',
      heldToJson: grammar !== null,
      promptTokens: promptIds.length,
      finishReason,
    };
  }

  /** Specials other than EOS (padding, BOS) are never generated. */
  function isAllowed(token: number): boolean {
    return eos.has(token) || tokenizer.isGenerable(token);
  }

  return { config, tokenizer, generate };
}

/** Whether `grammar` can constrain decoding with this tokenizer (its tokens are byte sequences). */
export function canConstrain(tokenizer: TextTokenizer): boolean {
  const [brace] = tokenizer.encode('{');
  return brace !== undefined && tokenizer.tokenBytes(brace) !== undefined;
}

/** The likeliest allowed token that also fits: the argmax, or the next best while it does not fit. */
function constrainedArgmax(
  logits: Float32Array,
  isAllowed: (token: number) => boolean,
  fits: (token: number) => boolean,
): number {
  const refused = new Set<number>();
  for (;;) {
    const token = argmax(logits, (candidate) => !refused.has(candidate) && isAllowed(candidate));
    if (fits(token)) return token;
    refused.add(token);
  }
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;

/** The first byte that is not JSON whitespace, if any. */
function firstNonBlank(bytes: ArrayLike<number>): number | undefined {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return byte;
  }
  return undefined;
}

function firstStop(text: string, stops: readonly string[]): number {
  let first = -1;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  return first;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
