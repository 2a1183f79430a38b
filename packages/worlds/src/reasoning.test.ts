import { describe, expect, it } from 'vitest';
import { splitReasoning } from './reasoning';

describe('splitReasoning', () => {
  it('splits a leading <think> block off the observation', () => {
    expect(splitReasoning('<think>\nls lists files.\n</think>\n\nREADME.md\n')).toEqual({
      observation: 'README.md\n',
      reasoning: 'ls lists files.',
    });
    expect(splitReasoning('  <think>a</think>{"ok": true}')).toEqual({
      observation: '{"ok": true}',
      reasoning: 'a',
    });
  });

  it('reads a block the chat template opened in the prompt (no <think> in the reply)', () => {
    expect(splitReasoning('Thinking.\n</think>\n\ntotal 0')).toEqual({
      observation: 'total 0',
      reasoning: 'Thinking.',
    });
  });

  it('treats a block cut off by max tokens as all reasoning', () => {
    expect(splitReasoning('<think>still thinking')).toEqual({
      observation: '',
      reasoning: 'still thinking',
    });
  });

  it('takes reasoning_content as the reasoning and leaves the content whole', () => {
    expect(splitReasoning('  indented output\n', 'the reason')).toEqual({
      observation: '  indented output\n',
      reasoning: 'the reason',
    });
    expect(splitReasoning('plain', null)).toEqual({ observation: 'plain' });
    expect(splitReasoning('a <think> in the middle </think> stays')).toEqual({
      observation: 'a <think> in the middle </think> stays',
    });
  });
});
