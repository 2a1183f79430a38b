import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBytes } from './byte-tokenizer';
import { createHfTokenizer } from './hf-tokenizer';
import { declaresByteTokenizer, modelTokenizer } from './model-tokenizer';
import { keyedTrajectories, TAU2_RETAIL } from './testing/held-out';
import { byteTokenizer, type TextTokenizer } from './tokenizer';

/** The bundled policy: the model folder whose tokenizer.json is a byte-level BPE with no merges. */
const POLICY_FOLDER = new URL('../../../models/terrarium-policy-tiny', import.meta.url).pathname;

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(join(POLICY_FOLDER, file), 'utf8'));
}

/** The bundled policy's tokenizer.json: a byte-level BPE over 256 bytes, no merges, 2 specials. */
const bundled = createHfTokenizer(
  await readJson('tokenizer.json'),
  await readJson('tokenizer_config.json'),
);

function streamed(tokenizer: TextTokenizer, ids: readonly number[], context?: number[]): string[] {
  const decoder = tokenizer.streamDecoder(context);
  return [...ids.map((id) => decoder.push(id)), decoder.flush()];
}

describe("the bundled policy's tokenizer.json through @huggingface/tokenizers", () => {
  it('encodes text to the same ids as the byte tokenizer, multi-byte characters included', () => {
    const text = 'A: {"q":"é 日本 😀"}\nO: ';
    expect(bundled.encode(text)).toEqual(encodeBytes(text));
    expect(bundled.encode('é日😀')).toEqual([0xc3, 0xa9, 0xe6, 0x97, 0xa5, 0xf0, 0x9f, 0x98, 0x80]);
  });

  it('knows 258 ids and never generates its specials', () => {
    expect(bundled.vocabSize).toBe(258);
    expect([0, 255, 256, 257, 258].map((id) => bundled.isGenerable(id))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it('streams a character once all its bytes are in, as the byte tokenizer does', () => {
    const ids = encodeBytes('a€😀');
    expect(streamed(bundled, ids)).toEqual(['a', '', '', '€', '', '', '', '😀', '']);
    expect(streamed(bundled, ids)).toEqual(streamed(byteTokenizer, ids));
  });

  it('flushes an unfinished character as U+FFFD', () => {
    expect(streamed(bundled, [0x61, 0xe2])).toEqual(['a', '', '\uFFFD']);
  });

  it('round-trips every real observation of tau2 retail and of a swe-agent CTF run', async () => {
    const files = [
      TAU2_RETAIL,
      'swe-agent/trajectories/demonstrations/ctf/crypto/BabyEncryption.traj',
    ];
    const observations: string[] = [];
    for (const file of files) {
      for (const { trajectory } of await keyedTrajectories(file)) {
        for (const step of trajectory.steps) {
          if (step.observation !== null) observations.push(step.observation.content);
        }
      }
    }
    expect(observations.length).toBe(315);
    // The CTF run prints 160 characters of 3-byte UTF-8 (U+1400–U+3FFF).
    expect(observations.filter((text) => /[\u1400-\u3fff]{160}/.test(text)).length).toBe(1);
    const mismatches = observations.filter((text) => {
      const ids = bundled.encode(text);
      return ids.join() !== encodeBytes(text).join() || streamed(bundled, ids).join('') !== text;
    });
    expect(mismatches).toEqual([]);
  });
});

/** An added token as tokenizer.json lists it. */
function special(content: string, id: number): object {
  return {
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  };
}

/**
 * A SentencePiece-style tokenizer.json in the Llama layout (Metaspace ▁, byte fallback, a BOS
 * template, and a decoder that strips the leading space of a decoded text).
 */
function llamaStyleTokenizer(): TextTokenizer {
  const vocab: Record<string, number> = {
    '<unk>': 0,
    '<s>': 1,
    '</s>': 2,
    '<0xE6>': 3,
    '<0x97>': 4,
    '<0xA5>': 5,
  };
  ['▁', 'H', 'e', 'l', 'o', 'w', 'r', 'd'].forEach((piece, i) => (vocab[piece] = 6 + i));
  return createHfTokenizer(
    {
      version: '1.0',
      added_tokens: [special('<unk>', 0), special('<s>', 1), special('</s>', 2)],
      normalizer: {
        type: 'Sequence',
        normalizers: [
          { type: 'Prepend', prepend: '▁' },
          { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
        ],
      },
      pre_tokenizer: null,
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: { id: '<s>', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
        ],
        pair: [],
        special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
      },
      decoder: {
        type: 'Sequence',
        decoders: [
          { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
          { type: 'ByteFallback' },
          { type: 'Fuse' },
          { type: 'Strip', content: ' ', start: 1, stop: 0 },
        ],
      },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: '<unk>',
        fuse_unk: true,
        byte_fallback: true,
        vocab,
        merges: [],
      },
    },
    { bos_token: '<s>', eos_token: '</s>' },
  );
}

describe('a SentencePiece-style tokenizer.json', () => {
  const llama = llamaStyleTokenizer();
  // "▁world" then 日 as three byte-fallback tokens.
  const generated = [6, 11, 10, 12, 9, 13, 3, 4, 5];

  it('adds BOS and never generates a special', () => {
    expect(llama.encode('Hello')).toEqual([1, 6, 7, 8, 9, 9, 10]);
    expect([0, 1, 2, 3, 6, 13, 14].map((id) => llama.isGenerable(id))).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it('keeps the leading space of the first generated token by decoding it after the prompt', () => {
    const prompt = llama.encode('Hello');
    expect(streamed(llama, generated, prompt)).toEqual([
      ' ',
      'w',
      'o',
      'r',
      'l',
      'd',
      '',
      '',
      '日',
      '',
    ]);
    // Decoded as a text of its own, the leading space goes, as the tokenizer decodes it.
    expect(streamed(llama, generated)[0]).toBe('');
  });

  it('streams a long output exactly as the whole of it decodes, window after window', () => {
    const prompt = llama.encode('Hello');
    const long = Array.from({ length: 60 }, () => generated).flat();
    expect(streamed(llama, long, prompt).join('')).toBe(' world日'.repeat(60));
  });
});

describe('modelTokenizer', () => {
  it('takes the byte tokenizer when config.json declares it, whatever else is there', () => {
    const config = { terrarium: { tokenizer: 'bytes' } };
    expect(declaresByteTokenizer(config)).toBe(true);
    expect(modelTokenizer({ config })).toBe(byteTokenizer);
    expect(declaresByteTokenizer({ model_type: 'llama' })).toBe(false);
    expect(declaresByteTokenizer(null)).toBe(false);
  });

  it('needs tokenizer.json otherwise, and says so', () => {
    expect(() => modelTokenizer({ config: { model_type: 'llama' } })).toThrow(
      'the model folder has no tokenizer.json, and its config.json does not declare "terrarium": {"tokenizer": "bytes"}',
    );
    expect(() => modelTokenizer({ config: {}, tokenizerJson: { version: '1.0' } })).toThrow(
      'tokenizer.json is not a tokenizer (no "model" in it)',
    );
    expect(() =>
      modelTokenizer({ config: {}, tokenizerJson: { model: {} }, tokenizerConfig: [] }),
    ).toThrow('tokenizer_config.json is not a JSON object');
  });
});
