/// <reference types="node" />
// Node only (exported from `@terrarium/worlds/undici`, never from the package's index, which
// browsers load).
import { Pool, type Dispatcher } from 'undici';
import type { ChatTransport, TransportReply } from './transport';

export interface UndiciTransportOptions {
  /** Connections kept per endpoint (default 256: one per request in flight at the usual limits). */
  connections?: number;
}

/** Characters (UTF-16 units) a reply may buffer ahead of its reader before the socket is paused. */
const HIGH_WATER_CHARS = 1 << 20;

/**
 * A reply's body as text pieces, fed by undici's handler callbacks and read by one consumer.
 * No Readable stream or async generator per request: those were most of the transport's own CPU.
 */
class ReplyText implements AsyncIterable<string>, AsyncIterator<string> {
  private readonly pieces: string[] = [];
  private buffered = 0;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private waiter: {
    resolve: (result: IteratorResult<string>) => void;
    reject: (error: unknown) => void;
  } | null = null;
  private readonly decoder = new TextDecoder();

  constructor(private readonly controller: Dispatcher.DispatchController) {}

  push(chunk: Uint8Array): void {
    this.deliver(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    // A character cut at the body's very end is replaced, as TextDecoder does for the whole body.
    this.deliver(this.decoder.decode());
    this.ended = true;
    this.settle();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.settle();
  }

  private deliver(text: string): void {
    if (text === '') return;
    if (this.waiter !== null) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve({ value: text, done: false });
      return;
    }
    this.pieces.push(text);
    this.buffered += text.length;
    if (this.buffered > HIGH_WATER_CHARS) this.controller.pause();
  }

  private settle(): void {
    if (this.waiter === null) return;
    const waiter = this.waiter;
    this.waiter = null;
    this.next().then(waiter.resolve, waiter.reject);
  }

  next(): Promise<IteratorResult<string>> {
    const piece = this.pieces.shift();
    if (piece !== undefined) {
      this.buffered -= piece.length;
      if (this.controller.paused && this.buffered <= HIGH_WATER_CHARS / 2) this.controller.resume();
      return Promise.resolve({ value: piece, done: false });
    }
    if (this.failure !== null) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The consumer left the loop early: the download stops. */
  return(): Promise<IteratorResult<string>> {
    if (!this.ended && this.failure === null) this.controller.abort(new Error('reply not read'));
    this.ended = true;
    this.pieces.length = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return this;
  }
}

/** undici aborts with an Error; what the caller sees is its own reason (`failure` below). */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/**
 * The endpoint pool's transport on undici's `Pool` (one per endpoint origin, keep-alive), driven
 * through its handler callbacks (`dispatch`): no Response, Headers, web or Node stream, abort
 * signal or async generator per request, about half the client CPU per request of undici's own
 * `request()` and a fraction of Node's fetch (benchmarks/openai-client-throughput.ts). It hands
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
  return (url, request) => {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.reject(new TypeError(`${url}: only http and https endpoints are supported`));
    }
    return new Promise<TransportReply>((resolve, reject) => {
      let cancelled: { reason: unknown } | null = null;
      let controller: Dispatcher.DispatchController | null = null;
      let text: ReplyText | null = null;
      request.onCancel((reason) => {
        if (cancelled !== null) return;
        cancelled = { reason };
        controller?.abort(asError(reason));
      });
      // As fetch reports them: the caller's reason for a cancel, else a TypeError naming the cause.
      const failure = (error: unknown): unknown =>
        cancelled !== null ? cancelled.reason : new TypeError('fetch failed', { cause: error });
      poolFor(target.origin).dispatch(
        {
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: request.headers,
          body: request.body,
        },
        {
          onRequestStart(started) {
            controller = started;
            if (cancelled !== null) started.abort(asError(cancelled.reason));
          },
          onResponseStart(started, statusCode, headers) {
            text = new ReplyText(started);
            resolve({
              status: statusCode,
              header: (name) => {
                const value = headers[name.toLowerCase()];
                return Array.isArray(value) ? value.join(', ') : (value ?? null);
              },
              text,
            });
          },
          onResponseData(_controller, chunk) {
            text?.push(chunk);
          },
          onResponseEnd() {
            text?.end();
          },
          onResponseError(_controller, error) {
            if (text === null) reject(failure(error));
            else text.fail(failure(error));
          },
        },
      );
    });
  };
}
