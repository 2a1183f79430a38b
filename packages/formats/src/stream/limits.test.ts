import { describe, expect, it } from 'vitest';
import type { RecordLayout } from '../adapter';
import { createSplitter } from './create-splitter';
import type { SplitItem } from './split-item';
import { utf8 } from './testing/probe-adapter';

const decoder = new TextDecoder();

function describeItems(bytes: Uint8Array, layout: RecordLayout, size: number): string[] {
  const splitter = createSplitter(layout, { maxRecordBytes: 40, maxDepth: 3 });
  const seen: string[] = [];
  const keep = (items: SplitItem[]) => {
    for (const item of items) {
      const shown =
        item.kind === 'record' ? decoder.decode(item.bytes) : 'reason' in item ? item.reason : '';
      const excerpt = 'excerpt' in item ? decoder.decode(item.excerpt) : '';
      seen.push(`${item.kind}@${item.line}:${item.byteOffset} ${shown} ${excerpt}`.trim());
    }
  };
  for (let offset = 0; offset < bytes.length; offset += size)
    keep(splitter.push(bytes.subarray(offset, offset + size)));
  keep(splitter.end());
  return seen;
}

describe('record limits', () => {
  it('decides oversize and too-deep records the same way whatever the chunk sizes', () => {
    const long = 'z'.repeat(60);
    const cases: [RecordLayout, string][] = [
      [{ kind: 'jsonl' }, `{"a":1}\n{"long":"${long}"}\r\n[[[[1]]]]\n[[[1]]]\n`],
      [{ kind: 'json-array' }, `[{"a":1}, {"long":"${long}"}   ,\n[[[[1]]]], [[1]]]`],
    ];
    for (const [layout, text] of cases) {
      const bytes = utf8(text);
      const whole = describeItems(bytes, layout, bytes.length);
      for (const size of [1, 2, 7, 39, 40, 41])
        expect(describeItems(bytes, layout, size)).toEqual(whole);
    }
    expect(describeItems(utf8(cases[0]?.[1] ?? ''), { kind: 'jsonl' }, 5)).toEqual([
      'record@1:0 {"a":1}',
      `bad-record@2:8 record too large: 72 bytes, more than the 40 bytes one record may hold {"long":"${long}"}`,
      'bad-record@3:81 JSON nested deeper than 3 levels, the most one record may have [[[[1]]]]',
      'record@4:91 [[[1]]]',
    ]);
    expect(describeItems(utf8(cases[1]?.[1] ?? ''), { kind: 'json-array' }, 5)).toEqual([
      'record@1:1 {"a":1}',
      `bad-record@1:10 record too large: 74 bytes, more than the 40 bytes one record may hold {"long":"${long}"}`,
      'bad-record@2:86 JSON nested deeper than 3 levels, the most one record may have [[[[1]]]]',
      'record@2:97 [[1]]',
    ]);
  });
});
