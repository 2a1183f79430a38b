import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJudgeAnswer, parsePairwiseAnswer, parseTuringAnswer } from './parse';

function rawOf(text: string) {
  const parse = parseJudgeAnswer(text);
  return parse.ok ? parse.raw : parse.error;
}

const ALL_FOUR = { format: 4, factuality: 4, consistency: 4, realism: 4, quality: 4 };

describe('parseJudgeAnswer', () => {
  it('reads strict JSON, scales (raw − 1) / 4 and averages the five', () => {
    const parse = parseJudgeAnswer(
      '{"reasoning": "ids match", "format": 5, "factuality": 3, "consistency": 4, "realism": 2, "quality": 1}',
    );
    expect(parse).toEqual({
      ok: true,
      raw: { format: 5, factuality: 3, consistency: 4, realism: 2, quality: 1 },
      scores: { format: 1, factuality: 0.5, consistency: 0.75, realism: 0.25, quality: 0 },
      overall: 0.5,
      reasoning: 'ids match',
    });
  });

  it('drops <think> blocks and prefers the fenced JSON', () => {
    const answer =
      '<think>maybe {"format": 1, "factuality": 1, "consistency": 1, "realism": 1, "quality": 1}</think>\n' +
      'Here is my verdict:\n```json\n{"format": 4, "factuality": 4, "consistency": 4, "realism": 4, "quality": 4}\n```';
    expect(rawOf(answer)).toEqual(ALL_FOUR);
    expect(
      rawOf(
        `still thinking…</think>${'{"format":4,"factuality":4,"consistency":4,"realism":4,"quality":4}'}`,
      ),
    ).toEqual(ALL_FOUR);
  });

  it('repairs single quotes, bare keys, trailing commas and Python literals', () => {
    expect(
      rawOf(
        "{'format': 4, factuality: 4, \"consistency\": 4, realism: '4', quality: 4, ok: True,}",
      ),
    ).toEqual(ALL_FOUR);
  });

  it('maps aliases and cases, reads "4/5" and {score} values, clamps to 1-5', () => {
    expect(
      rawOf(
        '{"Format_Score": "4/5", "Factual Accuracy": {"score": 9, "reason": "x"}, "COHERENCE": 0, "Plausibility": 3.5, "overall_quality": 2}',
      ),
    ).toEqual({ format: 4, factuality: 5, consistency: 1, realism: 3.5, quality: 2 });
  });

  it('finds scores nested under "scores" and the reasoning beside them', () => {
    const parse = parseJudgeAnswer(
      'Sure! {"scores": {"format": 2, "factuality": 2, "consistency": 2, "realism": 2, "quality": 2}, "rationale": "wrong id"} Hope this helps {x}',
    );
    expect(parse.ok && parse.reasoning).toBe('wrong id');
    expect(parse.ok && parse.overall).toBe(0.25);
  });

  it('closes an answer cut off mid-object', () => {
    expect(
      rawOf(
        '{"format": 4, "factuality": 4, "consistency": 4, "realism": 4, "quality": 4, "reasoning": "the outp',
      ),
    ).toEqual(ALL_FOUR);
  });

  it('falls back to "Dimension: n" lines in prose', () => {
    expect(rawOf('Format: 4/5\nFactuality - 4\nConsistency: 4\nRealism: 4\nQuality: 4')).toEqual(
      ALL_FOUR,
    );
  });

  it('says what is missing instead of guessing', () => {
    expect(rawOf('{"format": 4, "factuality": 3}')).toBe(
      'missing dimension(s): consistency, realism, quality',
    );
    expect(rawOf('I cannot judge this.')).toBe('no JSON object with scores found');
    expect(rawOf('  ')).toBe('empty answer');
  });

  it('never throws, and any success is within range', () => {
    const pieces = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      ',',
      ':',
      '<think>',
      '</think>',
      '```json\n',
      '```',
      'format',
      'Factuality',
      'consistency',
      'realism',
      'quality',
      '4',
      '-3',
      '1e400',
      'NaN',
      'True',
      ' ',
      '\n',
      '\\',
      'reasoning',
    );
    const check = () =>
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string(),
            fc.array(pieces).map((parts) => parts.join('')),
          ),
          (text) => {
            const parse = parseJudgeAnswer(text);
            if (!parse.ok) return typeof parse.error === 'string';
            return (
              Object.values(parse.scores).every((value) => value >= 0 && value <= 1) &&
              parse.overall >= 0 &&
              parse.overall <= 1
            );
          },
        ),
        { numRuns: 3000 },
      );
    expect(check).not.toThrow();
  });
});

describe('parseTuringAnswer', () => {
  it('reads the letter from JSON or prose, null when unclear', () => {
    expect(parseTuringAnswer('{"reasoning": "B has a fake PID", "real": "A"}')).toBe('A');
    expect(parseTuringAnswer('<think>A or B?</think>The real one is Response B.')).toBe('B');
    expect(parseTuringAnswer('Answer: A')).toBe('A');
    expect(parseTuringAnswer('B')).toBe('B');
    expect(parseTuringAnswer('A is real. No wait, B is real.')).toBeNull();
    expect(parseTuringAnswer('I cannot tell.')).toBeNull();
  });
});

describe('parsePairwiseAnswer', () => {
  it('reads A, B or a tie', () => {
    expect(
      parsePairwiseAnswer('```json\n{"closer": "Response B", "reasoning": "right ids"}\n```'),
    ).toBe('B');
    expect(parsePairwiseAnswer('{"closer": "tie"}')).toBe('tie');
    expect(parsePairwiseAnswer('Response A is closer to the real output.')).toBe('A');
    expect(parsePairwiseAnswer('Both are equally close; a tie.')).toBe('tie');
    expect(parsePairwiseAnswer('No idea')).toBeNull();
  });
});
