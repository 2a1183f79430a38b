import { describe, expect, it } from 'vitest';
import { finishInWords } from './finish-words';

describe('how a prediction ended, in words', () => {
  it('reads the same for a model that wrote its end of text in the browser and on the server', () => {
    expect([finishInWords('eos', 'browser'), finishInWords('stop', 'server')]).toEqual([
      'end of text',
      'end of text',
    ]);
    expect([finishInWords('length', 'browser'), finishInWords('length', 'server')]).toEqual([
      'the token budget',
      'the token budget',
    ]);
  });

  it('tells the browser decoder’s own stops apart, and passes an unknown reason through', () => {
    expect(
      ['stop', 'context', 'cycle', 'reference'].map((reason) => finishInWords(reason, 'browser')),
    ).toEqual([
      'a stop sequence',
      'a full context',
      'repetition',
      'the first neighbor’s answer, whole',
    ]);
    expect(finishInWords('tool_calls', 'server')).toBe('tool_calls');
  });
});
