/// <reference types="node" />
// Node only (exported from `@terrarium/worlds/undici`, never from the package's index, which
// browsers load).
import { Pool } from 'undici';
import type { ChatTransport, TransportReply } from './transport';

export interface UndiciTransportOptions {
  /** Connections kept per endpoint (default 256: one per request in flight at the usual limits). */
  connections?: number;
}

async function* textOf(body: AsyncIterable<unknown>): AsyncGenerator<string> {
  // undici's body yields bytes whatever its encoding is set to; decoded here, a character split
  // across two chunks included. Leaving this loop early destroys the body: the download stops.
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    if (!(chunk instanceof Uint8Array)) continue;
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/**
 * The endpoint pool's transport on undici's `Pool` (one per endpoint origin, keep-alive): about
 * half the client CPU per request of node:http's agent and a fifth of Node's fetch, which builds a
 * Response, Headers and a web stream per request (benchmarks/openai-client-throughput.ts). It hands
 * the pool the status, the header it asks for and the body's text as it arrives. Timeouts are the
 * pool's (its `onCancel`), so undici's own header and body timeouts are off: a slow model's first
 * token may take minutes.
 */
export function createUndiciTransport(options: UndiciTransportOptions = {}): ChatTransport {
  const pools = new Map<string, Pool>();
  const poolFor = (origin: string): Pool => {
    let pool = pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        connections: options.connections ?? 256,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      pools.set(origin, pool);
    }
    return pool;
  };
  return async (url, request) => {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new TypeError(`${url}: only http and https endpoints are supported`);
    }
    const controller = new AbortController();
    request.onCancel((reason) => controller.abort(reason));
    try {
      const reply = await poolFor(target.origin).request({
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
      });
      const result: TransportReply = {
        status: reply.statusCode,
        header: (name) => {
          const value = reply.headers[name.toLowerCase()];
          return Array.isArray(value) ? value.join(', ') : (value ?? null);
        },
        text: textOf(reply.body),
      };
      return result;
    } catch (error) {
      // As fetch reports them: the caller's reason for a cancel, else a TypeError naming the cause.
      if (controller.signal.aborted) throw controller.signal.reason;
      throw new TypeError('fetch failed', { cause: error });
    }
  };
}
