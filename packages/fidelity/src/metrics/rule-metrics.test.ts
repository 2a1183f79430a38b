import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RULE_METRICS, RULE_METRIC_IDS, scoreRules, type RuleMetricId } from './rule-metrics';

function metric(id: RuleMetricId) {
  const found = RULE_METRICS.find((m) => m.id === id);
  if (found === undefined) throw new Error(`no metric ${id}`);
  return found.fn;
}

describe('rule metrics on hand cases', () => {
  it('exact match compares bytes', () => {
    expect(metric('exact-match')('a b', 'a b')).toBe(1);
    expect(metric('exact-match')('a b ', 'a b')).toBe(0);
  });

  it('normalized match ignores whitespace, CRLF, ANSI escapes and JSON key order, not array order', () => {
    const normalized = metric('normalized-match');
    expect(normalized('{ "a": [1, 2],\n "b": 1 }', '{"b":1,"a":[1,2]}')).toBe(1);
    expect(normalized('[2, 1]', '[1, 2]')).toBe(0);
    expect(normalized('total  8\r\nfile', 'total 8\nfile')).toBe(1);
    expect(normalized('\u001b[31mred\u001b[0m text', 'red text')).toBe(1);
    expect(normalized('red text', 'red texts')).toBe(0);
  });

  it('JSON validity applies only when the real observation is a JSON object or array', () => {
    const validity = metric('json-validity');
    expect(validity('{"a":', '{"a": 1}')).toBe(0);
    expect(validity('[]', '{"a": 1}')).toBe(1);
    expect(validity('{"a": 1}', 'Error: User not found')).toBeNull();
    // A shell printing 9 is text, even though `9` parses as JSON.
    expect(validity('x', '9')).toBeNull();
  });

  it('JSON structure is the Jaccard of typed paths', () => {
    const structure = metric('json-structure');
    // real {$:object, a:number, b:string}, predicted {$:object, a:number, c:string}: 2 common of 4.
    expect(structure('{"a": 2, "c": "x"}', '{"a": 1, "b": "x"}')).toBe(0.5);
    // Types count: a string where a number was is another path.
    expect(structure('{"a": "1"}', '{"a": 1}')).toBeCloseTo(1 / 3, 12);
    // Array indices collapse: two elements or three, same structure.
    expect(structure('[{"p": 1}, {"p": 2}, {"p": 3}]', '[{"p": 5}, {"p": 6}]')).toBe(1);
    expect(structure('not json', '{"a": 1}')).toBe(0);
    expect(structure('{"a": 1}', 'plain')).toBeNull();
  });

  it('leaf-value F1 compares path=value multisets', () => {
    const leafF1 = metric('leaf-value-f1');
    expect(leafF1('{"a": 1, "b": "y"}', '{"a": 1, "b": "x"}')).toBe(0.5);
    expect(leafF1('{"b": "x", "a": 1}', '{"a": 1, "b": "x"}')).toBe(1);
    // Values at other paths do not count.
    expect(leafF1('{"c": 1}', '{"a": 1}')).toBe(0);
    // Object keys that are ids are data: they are placed by position and compared as values.
    expect(leafF1('{"card_1234567": {"x": 1}}', '{"card_7654321": {"x": 1}}')).toBe(0.5);
  });

  it('numeric closeness gives full credit within 10%, decaying to 0 at 100%', () => {
    const closeness = metric('numeric-closeness');
    // 105 vs 100: 4.8% → 1; 75 vs 50: 33.3% → (1 − 1/3) / 0.9 = 0.7407…; mean over two numbers.
    expect(closeness('took 105 ms, 75 rows', 'took 100 ms, 50 rows')).toBeCloseTo(
      (1 + 2 / 3 / 0.9) / 2,
      12,
    );
    expect(closeness('{"price": 200}', '{"price": 100}')).toBeCloseTo((1 - 0.5) / 0.9, 12);
    // Aligned by path, not by position.
    expect(closeness('{"b": 2, "a": 1}', '{"a": 1, "b": 2}')).toBe(1);
    // A number missing from the prediction scores 0.
    expect(closeness('{"a": 1}', '{"a": 1, "b": 2}')).toBe(0.5);
    expect(closeness('no numbers', 'none here either')).toBeNull();
  });

  it('error agreement compares failure with failure', () => {
    const agreement = metric('error-agreement');
    expect(agreement('Error: not found', 'Error: User not found')).toBe(1);
    expect(agreement('ok', 'bash: foo: command not found')).toBe(0);
    expect(
      agreement(
        'Traceback (most recent call last):\n  File "x.py"',
        'sh: 1: cat: x: No such file or directory',
      ),
    ).toBe(1);
    expect(
      agreement("Error executing query: Unknown column 'x'", 'ERROR 1054: Unknown column'),
    ).toBe(1);
    expect(agreement('[(1,)]', 'Process exited with exit code 2')).toBe(0);
    // The recorded kind marks the real observation as an error even when its text does not say so.
    expect(agreement('Error: invalid', 'nope', { kind: 'error' })).toBe(1);
    // A failure predicted where none happened is a disagreement.
    expect(agreement('Error: no such user', '{"user_id": "u1"}')).toBe(0);
    // Neither side failing says nothing about failures: n/a, so garbage is not credited for it.
    expect(agreement('[]', '[]')).toBeNull();
    expect(agreement('": ": ": "', '{"status": "ok"}')).toBeNull();
  });

  it('token F1, ROUGE-L, edit similarity and length ratio', () => {
    expect(metric('token-f1')('a b c', 'a b d')).toBeCloseTo(2 / 3, 12);
    expect(metric('token-f1')('', '')).toBe(1);
    expect(metric('token-f1')('x', '')).toBe(0);
    // LCS of a b c d / a c b d is 3 of 4 tokens each way.
    expect(metric('rouge-l')('a c b d', 'a b c d')).toBe(0.75);
    // kitten → sitting: 3 edits over 7 characters.
    expect(metric('edit-similarity')('kitten', 'sitting')).toBeCloseTo(4 / 7, 12);
    expect(metric('edit-similarity')('', '')).toBe(1);
    expect(metric('length-ratio')('ab', 'abcd')).toBe(0.5);
  });

  it('scoreRules returns every metric, null where one does not apply', () => {
    expect(scoreRules('a b c', 'a b d')).toEqual({
      'exact-match': 0,
      'normalized-match': 0,
      'json-validity': null,
      'json-structure': null,
      'leaf-value-f1': null,
      'numeric-closeness': null,
      'error-agreement': null,
      'token-f1': 2 / 3,
      'rouge-l': 2 / 3,
      'edit-similarity': 0.8,
      'length-ratio': 1,
    });
  });
});

const observation = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.json({ maxDepth: 3 }),
  fc
    .array(
      fc.constantFrom(
        'ls',
        '-la',
        '42',
        '3.5',
        'Error:',
        '\n',
        '  ',
        '{',
        '}',
        '"k":',
        '\u001b[1m',
      ),
      {
        maxLength: 30,
      },
    )
    .map((parts) => parts.join(' ')),
);

// Symmetric when swapping predicted and real changes nothing in the definition.
const SYMMETRIC: readonly RuleMetricId[] = [
  'exact-match',
  'normalized-match',
  'token-f1',
  'rouge-l',
  'edit-similarity',
  'length-ratio',
];

describe('rule metric properties', () => {
  it('every metric is in [0, 1] or null', () => {
    fc.assert(
      fc.property(observation, observation, (predicted, real) => {
        const outside = Object.values(scoreRules(predicted, real)).filter(
          (value) => value !== null && !(value >= 0 && value <= 1),
        );
        expect(outside).toEqual([]);
      }),
    );
  });

  it('a prediction equal to the real observation scores 1 on every metric that applies', () => {
    fc.assert(
      fc.property(observation, (real) => {
        const scores = scoreRules(real, real);
        expect(RULE_METRIC_IDS.filter((id) => scores[id] !== null && scores[id] !== 1)).toEqual([]);
      }),
    );
  });

  it('symmetric metrics do not depend on which side is real', () => {
    fc.assert(
      fc.property(observation, observation, (a, b) => {
        const forward = scoreRules(a, b);
        const backward = scoreRules(b, a);
        for (const id of SYMMETRIC) expect(forward[id]).toBeCloseTo(backward[id] ?? Number.NaN, 12);
      }),
    );
  });
});
