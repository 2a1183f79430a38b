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
      adjudications: [],
      labels: [
        {
          itemId: 'a',
          labelerName: 'ana',
          scores: { facts: 4, format: null },
          comment: 'ids differ',
          flagged: true,
          lines: { facts: 1, format: 2 },
        },
      ],
      errors: [],
    });
  });

  it('keeps settled values apart from labels, and says where each item comes from', () => {
    const text = labelsToJsonl(
      [
        {
          itemId: 'a',
          labelerName: 'ana',
          scores: { facts: 4 },
          comment: '',
          flagged: false,
          updatedAt: '2026-12-01T19:00:00.000Z',
        },
      ],
      {
        adjudications: [
          {
            itemId: 'a',
            criterion: 'facts',
            value: 3,
            comment: 'between the two',
            researcherName: 'res',
            createdAt: '2026-12-01T20:00:00.000Z',
          },
        ],
        provenance: (itemId) =>
          itemId === 'a'
            ? { task: 'intercode/sql', dataset: 'ic', trajectory: 'x.json#3', stepIndex: 2 }
            : undefined,
      },
    );
    expect(
      text
        .trim()
        .split('\n')
        .map((line): unknown => JSON.parse(line)),
    ).toEqual([
      {
        item: 'a',
        labeler: 'ana',
        criterion: 'facts',
        value: 4,
        comment: '',
        flagged: false,
        at: '2026-12-01T19:00:00.000Z',
        task: 'intercode/sql',
        dataset: 'ic',
        trajectory: 'x.json#3',
        stepIndex: 2,
      },
      {
        item: 'a',
        labeler: 'res',
        criterion: 'facts',
        value: 3,
        comment: 'between the two',
        adjudicated: true,
        at: '2026-12-01T20:00:00.000Z',
        task: 'intercode/sql',
        dataset: 'ic',
        trajectory: 'x.json#3',
        stepIndex: 2,
      },
    ]);
    const parsed = parseLabelsJsonl(text);
    expect(parsed.labels.map((label) => [label.labelerName, label.scores])).toEqual([
      ['ana', { facts: 4 }],
    ]);
    expect(parsed.adjudications).toEqual([
      {
        itemId: 'a',
        criterion: 'facts',
        value: 3,
        comment: 'between the two',
        researcherName: 'res',
        line: 2,
      },
    ]);
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

  it('keeps the line of every value, so checks after parsing can name it', () => {
    const parsed = parseLabelsJsonl(
      [
        '{"item":"a","labeler":"bo","criterion":"facts","value":2}',
        '',
        '{"item":"b","labeler":"bo","criterion":"facts","value":1}',
        '{"item":"a","labeler":"bo","criterion":"format","value":3}',
        '{"item":"a","labeler":"res","criterion":"facts","value":2,"adjudicated":true}',
      ].join('\n'),
    );
    expect(parsed.labels.map((label) => [label.itemId, label.lines])).toEqual([
      ['a', { facts: 1, format: 4 }],
      ['b', { facts: 3 }],
    ]);
    expect(parsed.adjudications.map((entry) => entry.line)).toEqual([5]);
  });
});
