import { describe, expect, it } from 'vitest';
import { diffableDocument } from './rule-set-document';

describe('diffableDocument', () => {
  it('indents a one-line JSON document and leaves YAML and broken JSON as stored', () => {
    expect(diffableDocument('{"name":"x","rules":[{"id":"exact","weight":2}]}')).toBe(
      [
        '{',
        '  "name": "x",',
        '  "rules": [',
        '    {',
        '      "id": "exact",',
        '      "weight": 2',
        '    }',
        '  ]',
        '}',
        '',
      ].join('\n'),
    );
    expect(diffableDocument('name: x\nrules: []\n')).toBe('name: x\nrules: []\n');
    expect(diffableDocument('{"name": ')).toBe('{"name": ');
  });
});
