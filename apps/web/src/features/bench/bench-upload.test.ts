import { describe, expect, it } from 'vitest';
import { benchFilesOf, benchImportUrl, readBenchUploadResponse } from './bench-upload';

describe('bench upload', () => {
  it('names each file and its size in the order sent', () => {
    expect(
      benchImportUrl('awb', [
        { name: 'mcp_test.jsonl', size: 10 },
        { name: 'os test.jsonl', size: 0 },
      ]),
    ).toBe('/api/bench/import?name=awb&file=mcp_test.jsonl&size=10&file=os+test.jsonl&size=0');
  });

  it('sends the official *_test.jsonl files of a folder, sorted, else its .jsonl files', () => {
    const picked = [
      { name: 'web_test.jsonl' },
      { name: 'README.md' },
      { name: 'mcp_test.jsonl' },
      { name: 'x.jsonl' },
    ];
    expect(benchFilesOf(picked).map((file) => file.name)).toEqual([
      'mcp_test.jsonl',
      'web_test.jsonl',
    ]);
    expect(
      benchFilesOf([{ name: 'b.jsonl' }, { name: 'a.jsonl' }, { name: 'c.txt' }]).map(
        (f) => f.name,
      ),
    ).toEqual(['a.jsonl', 'b.jsonl']);
  });

  it('reads the result, the row errors and a refusal', () => {
    const error = {
      file: 'mcp_test.jsonl',
      line: 3,
      field: 'turn_idx',
      reason: 'expected a number',
      message: 'mcp_test.jsonl:3: turn_idx: expected a number',
    };
    expect(
      readBenchUploadResponse(200, JSON.stringify({ manifest: null, errors: [error] })),
    ).toEqual({
      ok: true,
      result: { manifest: null, errors: [error] },
    });
    expect(
      readBenchUploadResponse(
        400,
        '{"error":{"message":"search_test.jsonl:5: the upload ended after 1 of 2 bytes; nothing imported"}}',
      ),
    ).toEqual({
      ok: false,
      error: 'search_test.jsonl:5: the upload ended after 1 of 2 bytes; nothing imported',
    });
    expect(readBenchUploadResponse(502, 'Bad gateway')).toEqual({
      ok: false,
      error: 'HTTP 502: Bad gateway',
    });
  });
});
