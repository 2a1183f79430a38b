import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryTurn } from '../types';
import { classifyObservation, classifySpans } from './classify';
import { indexHistory } from './history-index';
import { scoreClassified, scoreContentClasses } from './score';

const orderHistory: HistoryTurn[] = [
  {
    action: 'get_user_details {"user_id":"mei_patel_7272"}',
    observation: '{"user_id": "mei_patel_7272", "orders": ["#W9583042"]}',
  },
];
const orderAction = 'get_order_details {"order_id":"#W9583042"}';
const order =
  '{"order_id": "#W9583042", "user_id": "mei_patel_7272", "created_at": "2024-05-03T15:12:00", "price": 154.75, "name": "Running Shoes"}';

function scoreOrder(predicted: string): number {
  return scoreContentClasses(predicted, order, orderHistory, orderAction).score;
}

describe('classifySpans', () => {
  it('classes a tool result: echoed ids are deterministic, keys structure, the rest by kind', () => {
    expect(
      classifySpans(order, orderHistory, orderAction).map((span) => [
        span.class,
        span.kind,
        span.text,
        span.anchor,
      ]),
    ).toEqual([
      ['structure', 'json-key', '"order_id"', 'order_id:string'],
      ['deterministic', 'string', '#W9583042', 'order_id'],
      ['structure', 'json-key', '"user_id"', 'user_id:string'],
      ['deterministic', 'string', 'mei_patel_7272', 'user_id'],
      ['structure', 'json-key', '"created_at"', 'created_at:string'],
      ['runtime-metadata', 'timestamp', '2024-05-03T15:12:00', 'created_at'],
      ['structure', 'json-key', '"price"', 'price:number'],
      ['numeric-live', 'number', '154.75', 'price'],
      ['structure', 'json-key', '"name"', 'name:string'],
      ['unseen-content', 'string', 'Running Shoes', 'name'],
    ]);
  });

  it('keeps offsets into the observation', () => {
    for (const span of classifySpans(order, orderHistory, orderAction))
      expect(order.slice(span.start, span.end)).toBe(
        span.class === 'structure' ? span.text : span.text,
      );
  });

  it('treats object keys that are ids as data placed by position', () => {
    const spans = classifySpans(
      '{"payment_methods": {"credit_card_4421486": {"brand": "visa"}}}',
      [],
    );
    expect(spans.map((span) => [span.class, span.text, span.anchor])).toEqual([
      ['structure', '"payment_methods"', 'payment_methods:object'],
      ['structure', '"credit_card_4421486"', 'payment_methods.{}:object'],
      ['runtime-metadata', 'credit_card_4421486', 'payment_methods.<0>#key'],
      ['structure', '"brand"', 'payment_methods.{}.brand:string'],
      ['unseen-content', 'visa', 'payment_methods.<0>.brand'],
    ]);
  });

  it('finds echoed text through token bigrams, and runtime metadata by form', () => {
    const echo = classifySpans(
      'hello world from terrarium',
      [],
      "echo 'hello world from terrarium'",
    );
    expect(echo.filter((span) => span.class === 'deterministic').map((span) => span.text)).toEqual([
      'hello',
      'world',
      'from',
      'terrarium',
    ]);
    const started = classifySpans(
      'Started pid 4242 at 2026-11-29 19:08:36 as 550e8400-e29b-41d4-a716-446655440000 in /tmp/tmp.x81Kq2 (3.2M)',
      [],
      'start-server',
    );
    expect(
      started
        .filter((span) => span.class === 'runtime-metadata')
        .map((span) => [span.kind, span.text]),
    ).toEqual([
      ['pid', '4242'],
      ['timestamp', '2026-11-29 19:08:36'],
      ['uuid', '550e8400-e29b-41d4-a716-446655440000'],
      ['temp-name', '/tmp/tmp.x81Kq2'],
      ['size', '3.2M'],
    ]);
  });

  it('gives text a structure span per line, with its skeleton', () => {
    const spans = classifySpans('[File: /repo/a.py (6 lines total)]\n1:import os', [], 'open a.py');
    expect(spans.filter((span) => span.class === 'structure').map((span) => span.anchor)).toEqual([
      '[w: /w (9 w w)]',
      '9:w w',
    ]);
  });

  it('an index built step by step classifies like the history array', () => {
    const index = indexHistory(orderHistory, orderAction);
    expect(classifyObservation(order, index).spans).toEqual(
      classifyObservation(order, orderHistory, orderAction).spans,
    );
  });
});

/** A tool's answer with no history behind it: whatever it says is new to the simulator. */
function outcome(predicted: string, real: string) {
  return scoreContentClasses(predicted, real, [], '{"name":"cancel_reservation"}');
}

describe('scoreContentClasses on a tool result', () => {
  it('scores the real observation 1 and leaves metadata free to change format-preserving', () => {
    expect(scoreOrder(order)).toBe(1);
    expect(scoreOrder(order.replace('15:12:00', '16:40:27'))).toBe(1);
    // Reformatted JSON and reordered keys are the same document.
    expect(scoreOrder(JSON.stringify(JSON.parse(order), null, 2))).toBe(1);
  });

  it('weights classes 4 deterministic, 3 structure, 2 numeric, 1 metadata, 1 unseen', () => {
    // created_at no longer a timestamp: metadata 0 → (4 + 3 + 2 + 0 + 1) / 11.
    expect(scoreOrder(order.replace('2024-05-03T15:12:00', 'yesterday'))).toBeCloseTo(10 / 11, 12);
    // "name" dropped: structure Jaccard 5/6, unseen 0 → (4 + 2.5 + 2 + 1 + 0) / 11.
    expect(scoreOrder(order.replace(', "name": "Running Shoes"', ''))).toBeCloseTo(9.5 / 11, 12);
    // A price 3.4% off is within tolerance; 94% off gets (1 − 0.484…) / 0.9 of the numeric weight.
    expect(scoreOrder(order.replace('154.75', '160'))).toBe(1);
    const farPrice = (1 - 145.25 / 300) / 0.9;
    expect(scoreOrder(order.replace('154.75', '300'))).toBeCloseTo(
      (4 + 3 + 2 * farPrice + 1 + 1) / 11,
      12,
    );
  });

  it('punishes a contradicted fact: half the deterministic class, then the whole item × 0.75', () => {
    const result = scoreContentClasses(
      order.replace('mei_patel_7272', 'mei_patel_7273'),
      order,
      orderHistory,
      orderAction,
    );
    expect(result.contradictions).toBe(1);
    expect(result.score).toBeCloseTo((9 / 11) * 0.75, 12);
    expect(
      result.explanation.find((verdict) => verdict.span.text === 'mei_patel_7272'),
    ).toMatchObject({
      class: 'deterministic',
      matched: false,
      credit: 0,
      why: 'contradicted: mei_patel_7273',
    });
  });

  it('reads a flipped boolean or another status as a wrong outcome, not unseen content of the same form', () => {
    // What a new user of the reward service saw score 1: outcomes the history never showed.
    expect(outcome('{"success": true}', '{"success": true}').score).toBe(1);
    const flipped = outcome('{"success": false}', '{"success": true}');
    // Structure holds (3 of 7), the outcome (4 of 7) does not, and a contradiction costs × 0.75.
    expect(flipped.score).toBeCloseTo((3 / 7) * 0.75, 12);
    expect(flipped.contradictions).toBe(1);
    expect(flipped.explanation.find((verdict) => verdict.class === 'deterministic')).toMatchObject({
      class: 'deterministic',
      credit: 0,
      why: 'a different outcome: false',
    });
    expect(outcome('{"status": "error"}', '{"status": "ok"}').score).toBeCloseTo(
      (3 / 7) * 0.75,
      12,
    );
    const delivered = '{"order_id": "#W1", "status": "delivered"}';
    expect(outcome('{"order_id": "#W1", "status": "delivered"}', delivered).score).toBe(1);
    expect(outcome('{"order_id": "#W1", "status": "pending"}', delivered).score).toBeLessThan(0.5);
    // A true elsewhere in the prediction is no credit for this one.
    expect(
      outcome('{"ok": true, "success": false}', '{"ok": true, "success": true}').score,
    ).toBeLessThan(0.75);
  });

  it('gives an empty or non-JSON prediction nothing for structure', () => {
    expect(scoreOrder('')).toBe(0);
    const text = scoreContentClasses(
      'order #W9583042 for mei_patel_7272',
      order,
      orderHistory,
      orderAction,
    );
    expect(text.byClass.structure?.score).toBe(0);
    expect(text.byClass.deterministic?.score).toBe(0.5);
  });
});

describe('scoreContentClasses on terminal output', () => {
  const listing =
    'total 8\ndrwxr-xr-x 2 root root 4096 Nov 29 19:08 dir1\n-rw-r--r-- 1 root root 12 Nov 29 19:08 hello.txt';
  const history: HistoryTurn[] = [{ action: 'echo hi > hello.txt', observation: '' }];
  const score = (predicted: string) => scoreContentClasses(predicted, listing, history, 'ls -l');

  it('accepts other timestamps and penalizes reordered lines and a changed file name', () => {
    expect(score(listing).score).toBe(1);
    expect(score(listing.replaceAll('19:08', '20:15')).score).toBe(1);
    const reversed = score(listing.split('\n').toReversed().join('\n'));
    // One line stays in order, two are found out of order (½ each): structure 2/3.
    expect(reversed.byClass.structure?.score).toBeCloseTo(2 / 3, 12);
    expect(reversed.byClass.deterministic?.score).toBe(1);
    const renamed = score(listing.replace('hello.txt', 'hellx.txt'));
    expect(renamed.contradictions).toBe(1);
    expect(renamed.explanation.find((verdict) => verdict.span.text === 'hello.txt')?.why).toBe(
      'missing or changed in the prediction',
    );
    expect(renamed.score).toBeLessThan(reversed.score);
  });

  it('scores an empty real output 1 only against an empty prediction', () => {
    expect(scoreContentClasses('', '', [], 'touch x').score).toBe(1);
    expect(scoreContentClasses(' \n', '', [], 'touch x').score).toBe(1);
    expect(scoreContentClasses('created x', '', [], 'touch x').score).toBe(0);
  });
});

describe('content-class properties', () => {
  const observation = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.json({ maxDepth: 3 }),
    fc
      .array(
        fc.constantFrom(
          'ls',
          'pid',
          '4242',
          '2024-05-03',
          '12:00:01',
          'Error:',
          '\n',
          '{',
          '"k":',
          'a1b2c3d4e5',
        ),
        {
          maxLength: 30,
        },
      )
      .map((parts) => parts.join(' ')),
  );
  const history = fc.array(fc.record({ action: fc.string({ maxLength: 30 }), observation }), {
    maxLength: 3,
  });

  it('scores in [0, 1], the real observation itself 1, and explains every span', () => {
    fc.assert(
      fc.property(observation, observation, history, (predicted, real, turns) => {
        const classified = classifyObservation(real, turns, 'act');
        const result = scoreClassified(predicted, classified);
        expect(result.score).toBeGreaterThanOrEqual(0);
        expect(result.score).toBeLessThanOrEqual(1);
        expect(result.explanation).toHaveLength(classified.spans.length);
        expect(scoreClassified(real, classified).score).toBe(1);
      }),
    );
  });
});
