import { createServer, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { replyText, type TransportRequest } from './transport';
import { createUndiciTransport } from './undici-transport';

interface Served {
  url: string;
  /** Resolves when the server sees the client's connection close. */
  closed: Promise<void>;
  close(): Promise<void>;
}

const servers: Served[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((served) => served.close()));
});

async function serve(answer: (response: ServerResponse) => void): Promise<Served> {
  const seen: { close?: () => void } = {};
  const closed = new Promise<void>((resolve) => {
    seen.close = resolve;
  });
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response));
    response.on('close', () => seen.close?.());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const served: Served = {
    url: `http://127.0.0.1:${address.port}/v1/chat/completions`,
    closed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(served);
  return served;
}

function post(cancel?: (stop: (reason: unknown) => void) => void): TransportRequest {
  return {
    headers: { 'content-type': 'application/json' },
    body: '{}',
    onCancel: (listener) => cancel?.(listener),
  };
}

/** A body of `bytes` in chunks of 64 KB, each written when the socket has room. */
function writeLarge(response: ServerResponse, bytes: number, text: string): void {
  response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-size': String(bytes) });
  const chunk = text.repeat(Math.ceil(65_536 / text.length)).slice(0, 65_536);
  let sent = 0;
  const more = (): void => {
    while (sent < bytes) {
      const piece = chunk.slice(0, Math.min(chunk.length, bytes - sent));
      sent += piece.length;
      if (!response.write(piece)) {
        response.once('drain', more);
        return;
      }
    }
    response.end();
  };
  more();
}

describe('the undici transport (handler callbacks, no streams)', () => {
  it('reads a body far larger than its buffer whole, a header and a character split across chunks', async () => {
    // 8 MB read slowly: the transport pauses the socket above 1 MB and resumes as it drains.
    const served = await serve((response) => writeLarge(response, 8 * 1024 * 1024, 'abcdefg'));
    const reply = await createUndiciTransport()(served.url, post());
    expect(reply.status).toBe(200);
    expect(reply.header('X-Size')).toBe(String(8 * 1024 * 1024));
    expect(reply.header('x-missing')).toBeNull();
    let length = 0;
    let pieces = 0;
    for await (const piece of reply.text ?? []) {
      length += piece.length;
      if (++pieces % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(length).toBe(8 * 1024 * 1024);

    // "é" is two bytes; the server writes them in two writes, flushed apart.
    const split = await serve((response) => {
      const bytes = Buffer.from('[é]');
      response.writeHead(200);
      response.write(bytes.subarray(0, 2));
      setTimeout(() => response.end(bytes.subarray(2)), 20);
    });
    expect(await replyText(await createUndiciTransport()(split.url, post()))).toBe('[é]');
  });

  it('stops the download when the reader leaves early', async () => {
    const served = await serve((response) => writeLarge(response, 64 * 1024 * 1024, 'x'));
    const reply = await createUndiciTransport()(served.url, post());
    for await (const piece of reply.text ?? []) {
      expect(piece.length).toBeGreaterThan(0);
      break;
    }
    // The connection closes long before 64 MB could have been written.
    await served.closed;
  });

  it('reports a cancel with the caller’s reason, before the answer and while its body is read', async () => {
    const silent = await serve(() => undefined);
    const before = createUndiciTransport()(
      silent.url,
      post((stop) => setTimeout(() => stop(new Error('timed out after 30 ms')), 30)),
    );
    await expect(before).rejects.toThrow('timed out after 30 ms');

    const trickle = await serve((response) => {
      response.writeHead(200);
      response.write('first');
    });
    const caller: { stop?: (reason: unknown) => void } = {};
    const reply = await createUndiciTransport()(
      trickle.url,
      post((listener) => {
        caller.stop = listener;
      }),
    );
    const reading = replyText(reply);
    caller.stop?.('cancelled by the caller');
    await expect(reading).rejects.toBe('cancelled by the caller');
    await trickle.closed;
  });

  it('names a refused connection as fetch does', async () => {
    const served = await serve(() => undefined);
    await served.close();
    const failure: unknown = await createUndiciTransport()(served.url, post()).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  });
});
