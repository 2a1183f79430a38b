import { predictionInputs } from '@terrarium/worlds';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createDecoder,
  type Decoder,
  type GenerateOptions,
  type InferenceSessionLike,
  withWholeCache,
} from './decoder';
import { cacheKindOf } from './kv-cache';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder, nodeTensor } from './node';
import { loadWebModelFolder } from './node/web-model-folder';
import { buildPrompt } from './prompt';
import { heldOutTau2Trajectory } from './testing/held-out';

let decoder: Decoder;
/** The same model, counting its runs. */
let counted: { decoder: Decoder; runs: () => number };
let prompt: number[];
/** Prompts (no neighbors) of every transition of the held-out trajectory, in order. */
let prompts: number[][];

beforeAll(async () => {
  const loaded = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER);
  decoder = loaded.decoder;
  let runs = 0;
  // The decoder's view of the session: it passes the tensors `nodeTensor` made.
  const session: InferenceSessionLike = loaded.session;
  counted = {
    decoder: createDecoder({
      session: {
        inputNames: session.inputNames,
        outputNames: session.outputNames,
        run: (feeds, fetches) => {
          runs++;
          return session.run(feeds, fetches);
        },
      },
      config: loaded.config,
      tensor: nodeTensor,
      tokenizer: loaded.tokenizer,
    }),
    runs: () => runs,
  };
  const { trajectory } = await heldOutTau2Trajectory();
  // The third transition of a held-out trajectory: a real prompt with an earlier transition.
  prompts = [...predictionInputs(trajectory)].map(
    (input) =>
      buildPrompt({ ...input, domain: trajectory.domain, neighbors: [] }, decoder.tokenizer).ids,
  );
  const third = prompts[2];
  if (third === undefined) throw new Error('the held-out trajectory has fewer than 3 transitions');
  prompt = third;
});

/** The kinds of cache output (`present`, `new_key_values`) among fetched output names. */
function cacheOutputs(fetched: Set<string>): string[] {
  return [...fetched].filter((name) => name !== 'logits').map((name) => name.split('.')[0] ?? '');
}

function promptOf(transition: number): number[] {
  const found = prompts[transition];
  if (found === undefined)
    throw new Error(`no transition ${transition} in the held-out trajectory`);
  return found;
}

describe('decoder on the bundled model (onnxruntime-node)', () => {
  it('reads the model shape from config.json', () => {
    // Five cache entries: four attention blocks and the copy head (models/tiny_gpt.py).
    expect(decoder.config).toEqual({
      modelType: 'gpt2',
      vocabSize: 2048,
      layers: 5,
      kvHeads: 4,
      headDim: 32,
      contextLength: 2048,
      eosTokenIds: [0],
      bosTokenId: 0,
    });
  });

  it('decodes greedily, repeatably, and as a full recompute at every step would', async () => {
    const first = await decoder.generate(prompt, { maxTokens: 32 });
    const again = await decoder.generate(prompt, { maxTokens: 32 });
    const recomputed = await decoder.generate(prompt, { maxTokens: 32, useCache: false });
    expect(first.tokens.length).toBeGreaterThan(0);
    expect(again.tokens).toEqual(first.tokens);
    expect(recomputed.tokens).toEqual(first.tokens);
    expect(recomputed.text).toBe(first.text);
    // 32 full recomputes of a few-hundred-token prompt take seconds on a loaded 2-core machine.
  }, 30_000);

  it('gives the same greedy tokens with onnxruntime-web (wasm) as with onnxruntime-node', async () => {
    const web = await loadWebModelFolder(BUNDLED_MODEL_FOLDER);
    expect(web.executionProvider).toBe('wasm');
    const fromWeb = await web.decoder.generate(prompt, { maxTokens: 32 });
    const fromNode = await decoder.generate(prompt, { maxTokens: 32 });
    expect(fromWeb.tokens).toEqual(fromNode.tokens);
    // Instantiating onnxruntime-web's wasm takes seconds on a loaded 2-core machine.
  }, 30_000);

  it('streams exactly the returned text and ends before a stop string', async () => {
    const full = await decoder.generate(prompt, { maxTokens: 48 });
    const stop = full.text.slice(10, 13);
    const streamed: string[] = [];
    const stopped = await decoder.generate(prompt, {
      maxTokens: 48,
      stop: [stop],
      onToken: (piece) => streamed.push(piece),
    });
    expect(stopped.finishReason).toBe('stop');
    expect(stopped.text).toBe(full.text.slice(0, full.text.indexOf(stop)));
    expect(streamed.join('')).toBe(stopped.text);
  });

  it('held to JSON, gives JSON whatever the budget: closed when the budget cuts it', async () => {
    for (const maxTokens of [1, 7, 24, 200]) {
      const result = await decoder.generate(prompt, { maxTokens, grammar: 'json' });
      expect(() => JSON.parse(result.text), `${maxTokens} tokens: ${result.text}`).not.toThrow();
      // A whole value ends at EOS with nothing added; a cut one ends with what closed it.
      expect(result.finishReason === 'eos' ? result.closing : '').toBe('');
      expect(result.text.endsWith(result.closing)).toBe(true);
    }
    // A stop string cuts it as asked: nothing is invented to close what the stop left open.
    const whole = await decoder.generate(prompt, { maxTokens: 48, grammar: 'json' });
    const stop = whole.text.slice(12, 15);
    const cut = await decoder.generate(prompt, { maxTokens: 48, grammar: 'json', stop: [stop] });
    expect([cut.finishReason, cut.closing]).toEqual(['stop', '']);
    expect(cut.text).toBe(whole.text.slice(0, whole.text.indexOf(stop)));
    // Sampling is held to it too.
    const sampled = await decoder.generate(prompt, {
      maxTokens: 40,
      grammar: 'json',
      temperature: 1,
      seed: 5,
    });
    expect(() => JSON.parse(sampled.text)).not.toThrow();
  }, 60_000);

  it('held to JSON only once opened: plain text stays free, an opened object stays JSON', async () => {
    // Transition 0 is a user-id lookup, answered in plain text: the grammar never engages.
    const plain = await decoder.generate(promptOf(0), { maxTokens: 24 });
    const plainOpened = await decoder.generate(promptOf(0), {
      maxTokens: 24,
      grammar: 'json-if-opened',
    });
    expect(plain.text).toBe('daiki_johansson_4');
    expect(plainOpened).toEqual({ ...plain, heldToJson: false });
    // Transition 6 is a product lookup: free, the model writes a quote inside a string (without
    // neighbors it has no product to copy); once it opens the object, the grammar keeps it JSON at
    // every budget.
    const free = await decoder.generate(promptOf(6), { maxTokens: 24 });
    expect(free.text.startsWith('{"name": "J "7390"}')).toBe(true);
    expect(() => JSON.parse(free.text)).toThrow(SyntaxError);
    for (const maxTokens of [1, 7, 24, 200]) {
      const result = await decoder.generate(promptOf(6), {
        maxTokens,
        grammar: 'json-if-opened',
      });
      expect(result.heldToJson).toBe(true);
      expect(() => JSON.parse(result.text), `${maxTokens} tokens: ${result.text}`).not.toThrow();
    }
  }, 60_000);

  it('decodes the same output with lookahead as one token per model run, in fewer runs', async () => {
    const cases: { prompt: number[]; options: GenerateOptions }[] = prompts.map((ids) => ({
      prompt: ids,
      options: { maxTokens: 200, grammar: 'json-if-opened' },
    }));
    // Budgets and a stop string that end decoding in the middle of a run's kept guesses.
    for (const maxTokens of [1, 2, 9, 23])
      cases.push({ prompt: promptOf(4), options: { maxTokens } });
    const full = await decoder.generate(promptOf(4), { maxTokens: 200, lookahead: 0 });
    cases.push({
      prompt: promptOf(4),
      options: { maxTokens: 200, stop: [full.text.slice(12, 15)] },
    });
    let runsWith = 0;
    let runsWithout = 0;
    let tokens = 0;
    for (const { prompt: ids, options } of cases) {
      const before = counted.runs();
      const oneByOne = await counted.decoder.generate(ids, { ...options, lookahead: 0 });
      const between = counted.runs();
      const guessed = await counted.decoder.generate(ids, options);
      runsWithout += between - before;
      runsWith += counted.runs() - between;
      tokens += guessed.tokens.length;
      expect({ options, ...guessed }).toEqual({ options, ...oneByOne });
    }
    // One run per token (and one for EOS) without lookahead; with it, a copied span takes one run
    // (814 runs instead of 1,860 here).
    expect(runsWithout).toBeGreaterThanOrEqual(tokens);
    expect(runsWith).toBeLessThan(runsWithout / 2);
  }, 120_000);

  it('keeps the cache itself: a run returns its own entries, and the tokens are those of the whole cache', async () => {
    const loaded = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER);
    const quantized = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER, {
      file: 'model_quantized.onnx',
    });
    try {
      // Both files the project ships return each run's own entries (models/tiny_gpt.py).
      for (const { session, config } of [loaded, quantized]) {
        expect(cacheKindOf(session.outputNames, config)).toBe('held');
      }
      const session: InferenceSessionLike = loaded.session;
      /** The bundled session, seen with or without its `new_key_values` outputs. */
      const viewed = (withNew: boolean) => {
        const fetched = new Set<string>();
        const seen = withNew ? session : withWholeCache(session);
        const decoderOf = createDecoder({
          session: {
            inputNames: seen.inputNames,
            outputNames: seen.outputNames,
            run: (feeds, fetches) => {
              for (const name of fetches) fetched.add(name);
              return seen.run(feeds, fetches);
            },
          },
          config: loaded.config,
          tensor: nodeTensor,
          tokenizer: loaded.tokenizer,
        });
        return { decoder: decoderOf, fetched };
      };
      const held = viewed(true);
      const whole = viewed(false);
      // Lookahead cuts the cache whenever a guess fails: every prompt, long outputs.
      for (const ids of prompts) {
        const options: GenerateOptions = { maxTokens: 200, grammar: 'json-if-opened' };
        expect(await held.decoder.generate(ids, options)).toEqual(
          await whole.decoder.generate(ids, options),
        );
      }
      expect(new Set(cacheOutputs(held.fetched))).toEqual(new Set(['new_key_values']));
      expect(new Set(cacheOutputs(whole.fetched))).toEqual(new Set(['present']));
    } finally {
      await loaded.session.release();
      await quantized.session.release();
    }
  }, 120_000);

  it('samples repeatably for a seed', async () => {
    const a = await decoder.generate(prompt, { maxTokens: 24, temperature: 1, topK: 20, seed: 3 });
    const b = await decoder.generate(prompt, { maxTokens: 24, temperature: 1, topK: 20, seed: 3 });
    expect(b.tokens).toEqual(a.tokens);
    expect(a.tokens.every((token) => decoder.tokenizer.isGenerable(token))).toBe(true);
    expect(a.finishReason === 'eos' || a.tokens.length === 24).toBe(true);
  });

  it('stops when aborted, before or during decoding', async () => {
    const before = new AbortController();
    before.abort();
    await expect(decoder.generate(prompt, { signal: before.signal })).rejects.toThrow(/abort/i);

    const during = new AbortController();
    let pieces = 0;
    const run = decoder.generate(prompt, {
      maxTokens: 200,
      signal: during.signal,
      onToken: () => {
        pieces++;
        during.abort();
      },
    });
    await expect(run).rejects.toThrow(/abort/i);
    expect(pieces).toBe(1);
  });
});
