import { describe, expect, it } from 'vitest';
import { chatStreamEvents, SseDataParser } from './chat-stream';

describe('SseDataParser', () => {
  it('yields each event once its blank line arrives, across arbitrary chunk cuts', () => {
    const stream =
      'data: {"a":1}\n\n: a comment\nevent: x\ndata: line one\ndata: line two\r\n\r\ndata: [DONE]\n\n';
    const cuts = [1, 2, 3, 7, stream.length];
    const parsed = cuts.map((cut) => {
      const parser = new SseDataParser();
      const events: string[] = [];
      for (let at = 0; at < stream.length; at += cut)
        events.push(...parser.push(stream.slice(at, at + cut)));
      events.push(...parser.end());
      return [cut, events];
    });
    expect(parsed).toEqual(cuts.map((cut) => [cut, ['{"a":1}', 'line one\nline two', '[DONE]']]));
  });

  it('does not split a \\r\\n that straddles two chunks into two lines', () => {
    const parser = new SseDataParser();
    expect(parser.push('data: x\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual(['x']);
  });

  it('gives the last event even without a closing blank line', () => {
    const parser = new SseDataParser();
    expect(parser.push('data:no-space\n')).toEqual([]);
    expect(parser.end()).toEqual(['no-space']);
  });
});

describe('chatStreamEvents', () => {
  it('reads content, reasoning, the finish reason, usage with provenance, and [DONE]', () => {
    expect(
      chatStreamEvents(
        '{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
      ),
    ).toEqual([]);
    expect(
      chatStreamEvents(
        '{"choices":[{"index":0,"delta":{"reasoning_content":"hm","content":"{\\"ok\\":1}"},"finish_reason":null}]}',
      ),
    ).toEqual([
      { type: 'reasoning', text: 'hm' },
      { type: 'content', text: '{"ok":1}' },
    ]);
    expect(chatStreamEvents('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}')).toEqual(
      [{ type: 'finish', reason: 'stop' }],
    );
    expect(
      chatStreamEvents(
        '{"choices":[],"usage":{"prompt_tokens":120,"completion_tokens":31,"total_tokens":151},"terrarium":{"provenance":{"backend":"onnx"}}}',
      ),
    ).toEqual([
      {
        type: 'usage',
        usage: { promptTokens: 120, completionTokens: 31 },
        provenance: { backend: 'onnx' },
        neighbors: null,
      },
    ]);
    // The neighbors a local model's prompt showed, when the request asked for them.
    const neighbor = {
      action: { type: 'tool_call', name: 'get_user', arguments: { id: 'u1' }, callId: null },
      observation: '{"name":"Mia"}',
    };
    expect(
      chatStreamEvents(
        JSON.stringify({
          choices: [],
          usage: { prompt_tokens: 9, completion_tokens: 2 },
          terrarium: { provenance: null, neighbors: [neighbor] },
        }),
      ),
    ).toEqual([
      {
        type: 'usage',
        usage: { promptTokens: 9, completionTokens: 2 },
        provenance: null,
        neighbors: [neighbor],
      },
    ]);
    const malformed = { choices: [], usage: {}, terrarium: { neighbors: [{ action: 'ls' }] } };
    expect(chatStreamEvents(JSON.stringify(malformed))).toMatchObject([{ neighbors: null }]);
    expect(chatStreamEvents('[DONE]')).toEqual([{ type: 'done' }]);
  });

  it('turns an error event into an error with its message', () => {
    expect(() => chatStreamEvents('{"error":{"message":"endpoint down"}}')).toThrow(
      'endpoint down',
    );
  });
});
