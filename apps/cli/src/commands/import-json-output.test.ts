import { describe, expect, it } from 'vitest';
import { toJsonOutput } from './import-command';

describe('terrarium import --json errors', () => {
  it('joins a byte offset to the reason once, and not where the reader already named it', () => {
    const output = toJsonOutput({
      dataset: 'd',
      format: null,
      trajectories: 0,
      transitions: 0,
      quarantined: 0,
      errors: [
        {
          file: 'a.bin',
          line: null,
          byteOffset: 19,
          reason: 'binary file: NUL byte at byte offset 19',
        },
        { file: 'b.json', line: null, byteOffset: 232, reason: 'the file ends inside a record' },
        {
          file: 'c.jsonl',
          line: 3,
          byteOffset: 90,
          reason: 'invalid JSON at line 3, byte offset 90: x',
        },
      ],
    });
    expect(output.errors.map((error) => error.reason)).toEqual([
      'binary file: NUL byte at byte offset 19',
      'the file ends inside a record (at byte 232)',
      'invalid JSON at line 3, byte offset 90: x',
    ]);
  });
});
