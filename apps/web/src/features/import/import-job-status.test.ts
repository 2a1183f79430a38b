import { describe, expect, it } from 'vitest';
import { formatBytes } from './import-job-status';

describe('formatBytes', () => {
  it('counts in decimal units, as ls --si and the data folders do', () => {
    // walk 46's 264,347,818-byte file read "252.1 MB" (a MiB figure).
    expect(formatBytes(264_347_818)).toBe('264.3 MB');
    expect(formatBytes(1_723_122)).toBe('1.7 MB');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.0 KB');
    expect(formatBytes(1_064_000_000)).toBe('1.06 GB');
  });
});
