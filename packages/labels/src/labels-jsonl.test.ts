import { describe, expect, it } from 'vitest';
import { labelsToJsonl, parseLabelsJsonl } from './labels-jsonl';

describe('labels JSONL', () => {
  it('round-trips labels as one line per criterion, grouped back by item and labeler', () => {
    const text = labelsToJsonl([
      {
        itemId: 'a',
        labelerName: 'ana',
        scores: { facts: 4, format: null },
        comment: 'ids differ',
        flagged: true,
        updatedAt: '2026-12-01T19:00:00.000Z',
      },
    ]);
    expect(text.trim().split('\n')).toHaveLength(2);
    expect(parseLabelsJsonl(text)).toEqual({
      labels: [
        {
          itemId: 'a',
          labelerName: 'ana',
          scores: { facts: 4, format: null },
          comment: 'ids differ',
          flagged: true,
        },
      ],
      errors: [],
    });
  });

  it('reports bad lines with their number and the field, and keeps the good ones', () => {
    const parsed = parseLabelsJsonl(
      '{"item":"a","labeler":"bo","criterion":"facts","value":2}\n\n{oops\n{"item":"b","labeler":"bo","criterion":"facts","value":"x"}\n',
    );
    expect(parsed.labels.map((label) => [label.itemId, label.scores])).toEqual([
      ['a', { facts: 2 }],
    ]);
    expect(parsed.errors.map((error) => error.line)).toEqual([3, 4]);
    expect(parsed.errors[0]?.reason).toBe('not JSON');
    expect(parsed.errors[1]?.reason).toMatch(/^value: /);
  });
});
