import { describe, expect, it } from 'vitest';
import { inCliWords } from './cli-error';

describe('inCliWords', () => {
  const flags = { runId: '--run', maxDepth: '--max-depth', benchRun: '' };

  it("names the command's flag where the service named its field", () => {
    expect(inCliWords('runId: no curriculum run 99', flags)).toBe('--run: no curriculum run 99');
    expect(inCliWords('maxDepth.0: too deep', flags)).toBe('--max-depth.0: too deep');
  });

  it("drops a positional argument's field, and leaves what the command does not fill", () => {
    expect(inCliWords('benchRun: no bench run 9', flags)).toBe('no bench run 9');
    expect(inCliWords('dataset: no dataset "x"', flags)).toBe('dataset: no dataset "x"');
    expect(inCliWords('no field here', flags)).toBe('no field here');
    expect(inCliWords('constructor: not a flag', flags)).toBe('constructor: not a flag');
    expect(inCliWords('runId: two\nlines', flags)).toBe('--run: two\nlines');
  });
});
