import { describe, expect, it } from 'vitest';
import { actionFromText, historyFromText } from './playground-input';

describe('actionFromText', () => {
  it('reads {"name","arguments"} JSON as a tool call, or a browser action on the web', () => {
    const text = '{"name": "get_user_details", "arguments": {"user_id": "yusuf_rossi_9620"}}';
    expect(actionFromText(text, 'tool')).toEqual({
      type: 'tool_call',
      name: 'get_user_details',
      arguments: { user_id: 'yusuf_rossi_9620' },
      callId: null,
    });
    expect(actionFromText('{"name":"click","arguments":{"id":3}}', 'web')).toEqual({
      type: 'browser',
      name: 'click',
      arguments: { id: 3 },
    });
  });

  it('reads anything else as a command, braces included', () => {
    expect(actionFromText('ls -la /tmp', 'terminal')).toEqual({
      type: 'command',
      command: 'ls -la /tmp',
      interpreter: null,
    });
    expect(actionFromText('{ echo hi; }', 'terminal')).toEqual({
      type: 'command',
      command: '{ echo hi; }',
      interpreter: null,
    });
  });
});

describe('historyFromText', () => {
  it('is empty without an earlier action, one transition with it', () => {
    expect(historyFromText('  ', 'ignored', 'terminal')).toEqual([]);
    expect(historyFromText('pwd', '/home/user', 'terminal')).toEqual([
      {
        action: { type: 'command', command: 'pwd', interpreter: null },
        observation: { kind: 'terminal', content: '/home/user', callId: null },
      },
    ]);
  });
});
