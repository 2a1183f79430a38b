import { describe, expect, it } from 'vitest';
import { readSseData } from './sse';

function streamOf(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function collect(pieces: string[]): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readSseData(streamOf(pieces))) out.push(data);
  return out;
}

describe('readSseData', () => {
  it('yields each event whatever the chunk boundaries and line endings', async () => {
    const text =
      ': keep-alive\n\ndata: {"a":1}\r\n\r\ndata:{"b":2}\r\rdata: x\ndata: y\n\nevent: ping\ndata: [DONE]\n\n';
    const whole = await collect([text]);
    expect(whole).toEqual(['{"a":1}', '{"b":2}', 'x\ny', '[DONE]']);
    // Split after every character, so \r\n pairs and multi-byte characters straddle chunks.
    expect(await collect([...text])).toEqual(whole);
    expect(await collect(['data: é', 'ü\n\n', 'data: last'])).toEqual(['éü', 'last']);
  });
});
