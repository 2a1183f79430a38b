import { describe, expect, it } from 'vitest';
import type { Action } from '@terrarium/schema';
import { renderPrompt, truncateUtf8 } from './prompt';

const call = (name: string, args: { [key: string]: string }): Action => ({
  type: 'tool_call',
  name,
  arguments: args,
  callId: null,
});

describe('prompt format', () => {
  it('cuts on character boundaries', () => {
    expect(truncateUtf8('ab€cd', 4)).toBe('ab');
    expect(truncateUtf8('ab€cd', 5)).toBe('ab€');
    expect(truncateUtf8('abc', 3)).toBe('abc');
  });

  it('renders the last two transitions, escaped to one line each, then the action', () => {
    const history = ['one', 'two', 'three'].map((name) => ({
      action: call(name, {}),
      observation: { kind: 'text' as const, content: `${name}\nok`, callId: null },
    }));
    expect(renderPrompt('tool', history, call('find', { q: 'x' }))).toBe(
      [
        '@tool',
        'A: {"name":"two","arguments":{}}',
        'O: two\\nok',
        'A: {"name":"three","arguments":{}}',
        'O: three\\nok',
        'A: {"name":"find","arguments":{"q":"x"}}',
        'O: ',
      ].join('\n'),
    );
  });

  it('stays within the limits whatever the lengths', () => {
    const long = 'x'.repeat(5000);
    const history = [0, 1].map(() => ({
      action: call(long, {}),
      observation: { kind: 'text' as const, content: long, callId: null },
    }));
    const prompt = renderPrompt('database', history, call(long, {}));
    // "@database\n" + 2 × ("A: " + 40 + "\n" + "O: " + 64 + "\n") + "A: " + 128 + "\nO: ".
    expect(new TextEncoder().encode(prompt).length).toBe(10 + 2 * 112 + 135);
  });
});
