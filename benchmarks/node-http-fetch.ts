/// <reference types="node" />
// A fetch over node:http, the benchmarks' middle baseline between Node's fetch and the server's
// undici transport (`@terrarium/worlds/undici`); it served the OpenAI client before that transport.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface NodeHttpOptions {
  /** Connections kept per host (default 256: one per request in flight at the usual limits). */
  maxSockets?: number;
}

function agents(options: NodeHttpOptions) {
  const maxSockets = options.maxSockets ?? 256;
  return {
    http: new HttpAgent({ keepAlive: true, maxSockets }),
    https: new HttpsAgent({ keepAlive: true, maxSockets }),
  };
}

type OnCancel = (listener: (reason: unknown) => void) => void;

function errorOf(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

function onAbortOf(signal: AbortSignal | undefined): OnCancel {
  return (listener) => {
    if (signal === undefined) return;
    if (signal.aborted) listener(signal.reason);
    else signal.addEventListener('abort', () => listener(signal.reason), { once: true });
  };
}

/**
 * Sends one request on a keep-alive agent; resolves with the response as it starts to arrive.
 * A cancel destroys the request (or the response being read).
 */
function send(
  url: URL,
  init: RequestOptions,
  body: string | Uint8Array | undefined,
  onCancel: OnCancel,
  pools: ReturnType<typeof agents>,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let cancelled: { reason: unknown } | null = null;
    let finished = false;
    const secure = url.protocol === 'https:';
    const outgoing = (secure ? httpsRequest : httpRequest)(
      url,
      {
        ...init,
        agent: secure ? pools.https : pools.http,
        headers: {
          ...init.headers,
          ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
        },
      },
      (incoming) => {
        incoming.once('end', () => (finished = true));
        resolve(incoming);
      },
    );
    onCancel((reason) => {
      cancelled = { reason };
      if (!finished) outgoing.destroy(errorOf(reason));
    });
    outgoing.on('error', (error) => {
      reject(
        cancelled === null ? new TypeError('fetch failed', { cause: error }) : cancelled.reason,
      );
    });
    if (cancelled === null) outgoing.end(body);
  });
}

/**
 * A `fetch` for plain-HTTP endpoints built on `node:http` with a keep-alive agent, for callers that
 * take a fetch (here the benchmarks' bare baselines). Covers a string or bytes body,
 * headers as a record, an abort signal, and a Response whose body streams as it arrives; anything
 * else (a Request object, https, a stream body) goes to the global fetch.
 */
export function createNodeHttpFetch(options: NodeHttpOptions = {}): typeof fetch {
  const pools = agents(options);
  return async function nodeHttpFetch(input, init) {
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : null;
    const body = init?.body;
    const plainBody = body === undefined || typeof body === 'string' || body instanceof Uint8Array;
    const headers = headerRecord(init?.headers);
    if (url === null || url.protocol !== 'http:' || !plainBody || headers === null) {
      return fetch(input, init);
    }
    const incoming = await send(
      url,
      { method: init?.method ?? 'GET', headers },
      body,
      onAbortOf(init?.signal ?? undefined),
      pools,
    );
    return responseOf(incoming);
  };
}

function headerRecord(
  headers: NonNullable<Parameters<typeof fetch>[1]>['headers'],
): Record<string, string> | null {
  if (headers === undefined) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return null;
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') return null;
    record[name] = value;
  }
  return record;
}

function responseOf(incoming: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const status = incoming.statusCode ?? 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        // Backpressure: stop reading the socket while the consumer lags behind.
        if ((controller.desiredSize ?? 1) <= 0) incoming.pause();
      });
      incoming.on('end', () => controller.close());
      incoming.on('error', (error) => controller.error(error));
    },
    pull() {
      incoming.resume();
    },
    cancel() {
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
