/// <reference types="node" />
// Test support only: a real OpenAI-compatible HTTP server on 127.0.0.1 whose answers a test scripts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StubReply =
  | {
      type: 'completion';
      content: string;
      reasoningContent?: string;
      usage?: { prompt: number; completion: number } | null;
      delayMs?: number;
      /** Streamed content is cut into pieces of this many characters (default 4). */
      chunkSize?: number;
      /** Streaming only: a wait before each piece of content, as a model generating it. */
      pieceDelayMs?: number;
      /** Streaming only: end the stream without `data: [DONE]`. */
      omitDone?: boolean;
      /** Answer one JSON completion even when the request asks for a stream (as some servers do). */
      ignoreStream?: boolean;
    }
  | {
      type: 'status';
      status: number;
      retryAfter?: string;
      body?: string;
      /** Default `application/json`. */
      contentType?: string;
    }
  /** Never answers; the connection stays open until the client gives up. */
  | { type: 'hang' };

export interface StubRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface StubServer {
  baseUrl: string;
  requests: StubRequest[];
  /** Requests whose connection the client closed before the reply ended. */
  clientAborts: number;
  inFlight: number;
  peakInFlight: number;
  close(): Promise<void>;
  /** Resolves once `condition` holds (checked now and after each request, close or abort). */
  waitFor(condition: (stub: StubServer) => boolean): Promise<void>;
}

/** Starts a server answering each request with `reply(index, request)` (index counts from 0). */
export async function startStubServer(
  reply: (index: number, request: StubRequest) => StubReply,
): Promise<StubServer> {
  const waiting: { condition: (stub: StubServer) => boolean; resolve: () => void }[] = [];
  const notify = () => {
    for (const waiter of waiting.filter((w) => w.condition(stub))) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((incoming, outgoing) => {
    void answer(incoming, outgoing);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const stub: StubServer = {
    baseUrl: '',
    requests: [],
    clientAborts: 0,
    inFlight: 0,
    peakInFlight: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
    waitFor: (condition) =>
      new Promise((resolve) => {
        if (condition(stub)) resolve();
        else waiting.push({ condition, resolve });
      }),
  };

  async function answer(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) if (Buffer.isBuffer(chunk)) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: StubRequest = {
      path: incoming.url ?? '',
      headers: incoming.headers,
      body: text === '' ? null : JSON.parse(text),
    };
    const index = stub.requests.length;
    stub.requests.push(request);
    stub.inFlight++;
    stub.peakInFlight = Math.max(stub.peakInFlight, stub.inFlight);
    notify();
    let finished = false;
    outgoing.on('close', () => {
      stub.inFlight--;
      if (!finished) stub.clientAborts++;
      notify();
    });
    const planned = reply(index, request);
    if (planned.type === 'hang') return;
    if (planned.type === 'status') {
      outgoing.writeHead(planned.status, {
        'content-type': planned.contentType ?? 'application/json',
        ...(planned.retryAfter === undefined ? {} : { 'retry-after': planned.retryAfter }),
      });
      finished = true;
      outgoing.end(
        planned.body ?? JSON.stringify({ error: { message: `stub status ${planned.status}` } }),
      );
      return;
    }
    if (planned.delayMs !== undefined) await new Promise((r) => setTimeout(r, planned.delayMs));
    if (outgoing.destroyed) return;
    const usage =
      planned.usage === null
        ? undefined
        : {
            prompt_tokens: planned.usage?.prompt ?? 0,
            completion_tokens: planned.usage?.completion ?? 0,
            total_tokens: (planned.usage?.prompt ?? 0) + (planned.usage?.completion ?? 0),
          };
    const stream = isStreaming(request.body) && planned.ignoreStream !== true;
    if (!stream) {
      outgoing.writeHead(200, { 'content-type': 'application/json' });
      finished = true;
      outgoing.end(
        JSON.stringify({
          id: `cmpl-${index}`,
          object: 'chat.completion',
          model: 'stub-model',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: planned.content,
                ...(planned.reasoningContent === undefined
                  ? {}
                  : { reasoning_content: planned.reasoningContent }),
              },
              finish_reason: 'stop',
            },
          ],
          ...(usage === undefined ? {} : { usage }),
        }),
      );
      return;
    }
    outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const size = planned.chunkSize ?? 4;
    const send = (payload: unknown) => outgoing.write(`data: ${JSON.stringify(payload)}\n\n`);
    const chunk = (delta: Record<string, string>, finish: string | null = null) => ({
      id: `cmpl-${index}`,
      object: 'chat.completion.chunk',
      model: 'stub-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    send(chunk({ role: 'assistant' }));
    const reasoning = planned.reasoningContent ?? '';
    for (let at = 0; at < reasoning.length; at += size) {
      send(chunk({ reasoning_content: reasoning.slice(at, at + size) }));
    }
    for (let at = 0; at < planned.content.length; at += size) {
      if (planned.pieceDelayMs !== undefined) {
        await new Promise((r) => setTimeout(r, planned.pieceDelayMs));
        if (outgoing.destroyed) return;
      }
      send(chunk({ content: planned.content.slice(at, at + size) }));
    }
    send(chunk({}, 'stop'));
    if (usage !== undefined) {
      send({
        id: `cmpl-${index}`,
        object: 'chat.completion.chunk',
        model: 'stub-model',
        choices: [],
        usage,
      });
    }
    if (planned.omitDone !== true) outgoing.write('data: [DONE]\n\n');
    finished = true;
    outgoing.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('stub server has no port');
  stub.baseUrl = `http://127.0.0.1:${(address satisfies AddressInfo).port}`;
  return stub;
}

function isStreaming(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'stream' in body && body.stream === true;
}
