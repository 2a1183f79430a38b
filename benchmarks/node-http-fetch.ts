import { Agent, request, type IncomingMessage } from 'node:http';

/**
 * A `fetch` for plain-HTTP endpoints built on `node:http` with a keep-alive agent. Node's own
 * fetch (undici) costs 400-800 µs of CPU per small streamed request on this 2-core machine, three
 * to five times what node:http does (see README, benchmark (a)); with 256 requests in flight that
 * CPU, not the network, bounds the client. The OpenAI-compatible client takes any `fetch`, so a
 * Node caller can hand it this one.
 *
 * Covers what the client uses: a string or bytes body, headers as a record, an abort signal, and
 * a Response whose body streams as it arrives. Anything else (a Request object, https, a stream
 * body) goes to the global fetch.
 */
export function createNodeHttpFetch(options: { maxSockets?: number } = {}): typeof fetch {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 });
  return function nodeHttpFetch(input, init) {
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : null;
    const body = init?.body;
    const plainBody = body === undefined || typeof body === 'string' || body instanceof Uint8Array;
    const headers = headerRecord(init?.headers);
    if (url === null || url.protocol !== 'http:' || !plainBody || headers === null) {
      return fetch(input, init);
    }
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const outgoing = request(
        url,
        {
          method: init?.method ?? 'GET',
          agent,
          headers: {
            ...headers,
            ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
          },
        },
        (incoming) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(responseOf(incoming, signal));
        },
      );
      const onAbort = () => outgoing.destroy(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(
          signal?.aborted === true
            ? signal.reason
            : new TypeError('fetch failed', { cause: error }),
        );
      });
      outgoing.end(body);
    });
  };
}

function headerRecord(headers: HeadersInit | undefined): Record<string, string> | null {
  if (headers === undefined) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return null;
  return headers;
}

function responseOf(incoming: IncomingMessage, signal: AbortSignal | undefined): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const status = incoming.statusCode ?? 0;
  const onAbort = () => incoming.destroy(signal?.reason);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal?.addEventListener('abort', onAbort, { once: true });
      incoming.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        // Backpressure: stop reading the socket while the consumer lags behind.
        if ((controller.desiredSize ?? 1) <= 0) incoming.pause();
      });
      incoming.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        controller.close();
      });
      incoming.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        controller.error(error);
      });
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      signal?.removeEventListener('abort', onAbort);
      incoming.destroy();
    },
  });
  // A Response may not carry a body with a null-body status.
  const nullBody = status === 204 || status === 205 || status === 304;
  return new Response(nullBody ? null : body, {
    status,
    statusText: incoming.statusMessage ?? '',
    headers,
  });
}
