import { buildRetrievalIndex, predictionInputs } from '@terrarium/worlds';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANCHOR_BIAS, Anchor, REALIGN_BYTES } from './anchor';
import type { Decoder } from './decoder';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from './node';
import { buildPrompt, observationGrammar, promptNeighbors, type PromptNeighbor } from './prompt';
import { heldOutTau2Trajectory, keyedTrajectories, TAU2_RETAIL } from './testing/held-out';

let decoder: Decoder;
/** The prompt of a held-out tau2 retail step and its first neighbor's recorded answer. */
let promptIds: number[];
let neighbors: PromptNeighbor[];
let reference: string;
const EOS = 0;

beforeAll(async () => {
  decoder = (await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER)).decoder;
  const heldOut = await heldOutTau2Trajectory();
  const index = buildRetrievalIndex(
    (await keyedTrajectories(TAU2_RETAIL))
      .filter(({ task }) => task !== heldOut.task)
      .map(({ trajectory }) => trajectory),
  );
  const input = [...predictionInputs(heldOut.trajectory)][1];
  if (input === undefined) throw new Error('the held-out trajectory has fewer than 2 steps');
  neighbors = promptNeighbors(index, input.context, input.history, input.action);
  reference = neighbors[0]?.observation ?? '';
  promptIds = buildPrompt(
    { domain: input.context.domain, history: input.history, action: input.action, neighbors },
    decoder.tokenizer,
  ).ids;
});

describe('Anchor', () => {
  it('says where the output left the reference, and gives the reference from there', () => {
    const tokenizer = decoder.tokenizer;
    const anchor = new Anchor('{"id": "é42", "n": 1}', tokenizer, EOS);
    expect(anchor.isOn()).toBe(true);
    for (const token of tokenizer.encode('{"id": "')) anchor.advance(token);
    expect(anchor.isOn()).toBe(true);
    // Another id: the output leaves the reference at its 8th byte.
    for (const token of tokenizer.encode('x9')) anchor.advance(token);
    expect(anchor.isOn()).toBe(false);
    expect(anchor.leftAt()).toBe(8);
    expect(anchor.referenceFrom(anchor.leftAt())).toBe('é42", "n": 1}');
    // Byte 9 is inside the two bytes of é: no text starts there.
    expect(anchor.referenceFrom(9)).toBeNull();
  });

  it('names the reference token by token, then EOS, and drafts its next tokens', () => {
    const tokenizer = decoder.tokenizer;
    const tokens = tokenizer.encode(reference);
    const anchor = new Anchor(reference, tokenizer, EOS);
    expect(anchor.draft(4)).toEqual(tokens.slice(0, 4));
    const named: number[] = [];
    for (;;) {
      const next = anchor.candidate();
      if (next === undefined || next === EOS) break;
      named.push(next);
      anchor.advance(next);
    }
    expect(named).toEqual(tokens);
    expect(anchor.candidate()).toBe(EOS);
    expect(anchor.draft(4)).toEqual([]);
  });

  it('leaves the reference at a changed value and follows it again after the value', () => {
    // The reference is a real tau2 answer; the output writes another id of another length.
    const tokenizer = decoder.tokenizer;
    const id = /"user_id": "([a-z_0-9]+)"/.exec(reference);
    if (id?.index === undefined) throw new Error('the reference has no user_id');
    const before = reference.slice(0, id.index + '"user_id": "'.length);
    const after = reference.slice(before.length + (id[1] ?? '').length);
    const anchor = new Anchor(reference, tokenizer, EOS);
    for (const token of tokenizer.encode(before)) anchor.advance(token);
    // A fresh id leaves it; the anchor names nothing until REALIGN_BYTES bytes match again.
    // (It ends in a letter: an id ending as the real one does would realign a byte early.)
    for (const token of tokenizer.encode('someone_else_xy')) anchor.advance(token);
    expect(anchor.candidate()).toBeUndefined();
    const resumed = after.slice(0, REALIGN_BYTES);
    for (const byte of new TextEncoder().encode(resumed)) {
      expect(anchor.candidate()).toBeUndefined();
      anchor.advance(tokenizer.encode(String.fromCharCode(byte))[0] ?? -1);
    }
    // Back on it right after the id: what it names now spells the rest of the reference.
    const rest: number[] = [];
    for (let next = anchor.candidate(); next !== undefined && next !== EOS;) {
      rest.push(next);
      anchor.advance(next);
      next = anchor.candidate();
    }
    expect(decoder.tokenizer.describe(rest)).toBe(after.slice(REALIGN_BYTES));
  });
});

describe('anchored decoding of the bundled model', () => {
  it('is greedy decoding at bias 0 and the reference itself at an infinite bias', async () => {
    const grammar = observationGrammar(neighbors, 'tool');
    const options = { maxTokens: 768, ...(grammar === undefined ? {} : { grammar }) };
    const greedy = await decoder.generate(promptIds, options);
    const unbiased = await decoder.generate(promptIds, {
      ...options,
      anchor: { text: reference, bias: 0 },
    });
    expect(unbiased.tokens).toEqual(greedy.tokens);
    const copied = await decoder.generate(promptIds, {
      ...options,
      anchor: { text: reference, bias: Infinity },
    });
    expect(copied.text).toBe(reference);
    expect(copied.finishReason).toBe('eos');
    // The model alone does not copy this answer whole (else the test would show nothing).
    expect(greedy.text).not.toBe(reference);
  });

  it('answers with a reference the context cannot hold, whole, unless a budget stops it sooner', async () => {
    const grammar = observationGrammar(neighbors, 'tool');
    const room = decoder.config.contextLength - promptIds.length;
    // The real answer, listed until the list is longer than what the context leaves.
    const copies = Math.ceil(room / decoder.tokenizer.encode(reference).length) + 1;
    const long = `[${Array.from({ length: copies }, () => reference).join(', ')}]`;
    expect(decoder.tokenizer.encode(long).length).toBeGreaterThanOrEqual(room);
    const streamed: string[] = [];
    const options = {
      ...(grammar === undefined ? {} : { grammar }),
      anchor: { text: long, bias: ANCHOR_BIAS },
    };
    const whole = await decoder.generate(promptIds, {
      ...options,
      maxTokens: decoder.config.contextLength,
      onToken: (text) => streamed.push(text),
    });
    expect(whole).toMatchObject({ text: long, tokens: [], finishReason: 'reference' });
    expect(streamed.join('')).toBe(long);
    // The caller's budget ends the output before the context would: the model decodes it.
    const budgeted = await decoder.generate(promptIds, { ...options, maxTokens: 64 });
    expect(budgeted.finishReason).toBe('length');
    expect(budgeted.tokens).toHaveLength(64);
  });
});
