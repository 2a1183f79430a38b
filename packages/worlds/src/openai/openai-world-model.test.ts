/// <reference types="node" />
import type { Action } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, renderMessages } from '../prompt/template';
import type { SimContext, Transition } from '../world-model';
import { systemClock, type Clock } from './clock';
import { createEndpointPool, type PoolOptions } from './endpoint-pool';
import { createUndiciTransport } from './undici-transport';
import { EndpointError } from './errors';
import { createOpenAIWorldModel } from './openai-world-model';
import { startStubServer, type StubReply, type StubServer } from './testing/stub-server';

const context: SimContext = {
  domain: 'tool',
  task: 'Find the balance of gift card gc-1.',
  systemPrompt: 'You are a retail agent.',
  tools: [],
};
const history: Transition[] = [
  {
    action: { type: 'tool_call', name: 'find_user', arguments: { email: 'a@b.c' }, callId: 'c1' },
    observation: { kind: 'text', content: 'user_1', callId: 'c1' },
  },
];
const action: Action = {
  type: 'tool_call',
  name: 'get_gift_card',
  arguments: { id: 'gc-1' },
  callId: 'c2',
};

const servers: StubServer[] = [];
async function serve(reply: (index: number) => StubReply): Promise<StubServer> {
  const server = await startStubServer(reply);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The real clock, remembering every timer the client sets (timeouts and backoff waits). */
function recordingClock(): { clock: Clock; timers: number[] } {
  const timers: number[] = [];
  return {
    timers,
    clock: {
      ...systemClock,
      setTimer: (ms, callback) => (timers.push(ms), systemClock.setTimer(ms, callback)),
    },
  };
}

const balance = '{"id": "gc-1", "balance": 60.0}';

function slowReply(): StubReply {
  return { type: 'completion', content: 'x', delayMs: 20 };
}

// Every behaviour holds over both ways of sending: a fetch (browsers, tests) and the undici
// transport the server uses.
const clients: [string, Pick<PoolOptions, 'fetch' | 'transport'>][] = [
  ['fetch', { fetch }],
  ['the undici transport', { transport: createUndiciTransport() }],
];

describe.each(clients)('the OpenAI-compatible world model over real HTTP, %s', (_, client) => {
  it('streams a prediction, sending the AgentWorldBench messages and the options', async () => {
    const server = await serve(() => ({
      type: 'completion',
      content: balance,
      usage: { prompt: 120, completion: 14 },
    }));
    const model = createOpenAIWorldModel({
      baseUrl: `${server.baseUrl}/v1/`,
      model: 'qwen-world',
      apiKey: 'k-123',
      ...client,
      maxConcurrency: 2,
    });
    const tokens: string[] = [];
    const prediction = await model.predict(context, history, action, {
      maxTokens: 40_000,
      stop: ['<|im_end|>'],
      seed: 7,
      onToken: (text) => tokens.push(text),
    });
    expect(prediction.observation).toEqual({ kind: 'json', content: balance, callId: 'c2' });
    expect(prediction.reasoning).toBeUndefined();
    expect(prediction.usage).toEqual({ inputTokens: 120, outputTokens: 14 });
    expect(prediction.provenance).toEqual({
      backend: 'openai',
      cache: null,
      model: 'stub-model',
      detail: {
        endpoint: `${server.baseUrl}/v1/`,
        attempts: 1,
        template: 'agentworldbench@1',
        finishReason: 'stop',
        usageReported: true,
        costUsd: null,
      },
    });
    expect(tokens.join('')).toBe(balance);
    expect(tokens.length).toBe(Math.ceil(balance.length / 4));
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer k-123');
    expect(request?.body).toEqual({
      model: 'qwen-world',
      messages: renderMessages(DEFAULT_TEMPLATE, context, history, action),
      temperature: 0,
      max_tokens: 40_000,
      stop: ['<|im_end|>'],
      seed: 7,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('also works without streaming, on a base URL without /v1', async () => {
    const server = await serve(() => ({ type: 'completion', content: 'user_1', usage: null }));
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      stream: false,
    });
    const prediction = await model.predict(context, [], action);
    expect(prediction.observation).toEqual({ kind: 'text', content: 'user_1', callId: 'c2' });
    expect(prediction.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(prediction.provenance.detail?.['usageReported']).toBe(false);
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/chat/completions']);
    expect(server.requests[0]?.body).toMatchObject({ stream: false });
  });

  it('reads one JSON completion from a server that ignores `stream: true`', async () => {
    const server = await serve(() => ({
      type: 'completion',
      content: balance,
      usage: { prompt: 12, completion: 9 },
      ignoreStream: true,
    }));
    const model = createOpenAIWorldModel({ baseUrl: server.baseUrl, model: 'm', ...client });
    const prediction = await model.predict(context, history, action);
    expect(prediction.observation).toEqual({ kind: 'json', content: balance, callId: 'c2' });
    expect(prediction.usage).toEqual({ inputTokens: 12, outputTokens: 9 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toMatchObject({ stream: true });
  });

  it('keeps reasoning apart from the observation, inline <think> or reasoning_content', async () => {
    const replies: StubReply[] = [
      { type: 'completion', content: `<think>The card was seen.\n</think>\n\n${balance}` },
      { type: 'completion', content: balance, reasoningContent: 'Check the card id.' },
    ];
    const server = await serve((index) => replies[index % 2] ?? { type: 'hang' });
    for (const stream of [true, false]) {
      const model = createOpenAIWorldModel({
        baseUrl: server.baseUrl,
        model: 'm',
        ...client,
        stream,
      });
      const inline = await model.predict(context, history, action);
      const field = await model.predict(context, history, action);
      expect([inline.observation.content, inline.reasoning]).toEqual([
        balance,
        'The card was seen.',
      ]);
      expect([field.observation.content, field.reasoning]).toEqual([balance, 'Check the card id.']);
    }
  });

  it('retries a 429 after the Retry-After it asked for, then succeeds', async () => {
    const server = await serve((index) =>
      index === 0
        ? { type: 'status', status: 429, retryAfter: '1' }
        : { type: 'completion', content: 'ok', usage: { prompt: 5, completion: 1 } },
    );
    const { clock, timers } = recordingClock();
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      clock,
      random: () => 0,
      retry: { attempts: 3, baseDelayMs: 10 },
      timeoutMs: 5000,
      idleTimeoutMs: 3000,
    });
    const prediction = await model.predict(context, history, action);
    expect(prediction.observation.content).toBe('ok');
    expect(prediction.provenance.detail?.['attempts']).toBe(2);
    expect(server.requests.length).toBe(2);
    // Attempt 1's timeout and idle timers, the Retry-After wait (not the 5 ms jittered backoff),
    // attempt 2's two timers.
    expect(timers).toEqual([5000, 3000, 1000, 5000, 3000]);
    expect(model.stats()[0]).toMatchObject({ requests: 2, retries: 1, completed: 1, failed: 0 });
  });

  it('retries 5xx with exponential backoff and gives up after the last attempt', async () => {
    const server = await serve(() => ({ type: 'status', status: 503, body: 'overloaded' }));
    const { clock, timers } = recordingClock();
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      clock,
      random: () => 0.5,
      retry: { attempts: 4, baseDelayMs: 8 },
      timeoutMs: 0,
      idleTimeoutMs: 0,
    });
    const error = await model.predict(context, history, action).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EndpointError);
    expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 4 });
    expect(error instanceof Error ? error.message : '').toBe(
      `${server.baseUrl}/v1/chat/completions answered HTTP 503: overloaded; gave up after 4 attempts`,
    );
    expect(server.requests.length).toBe(4);
    // 8, 16, 32 ms, each times the jitter factor 0.5 + 0.5 × 0.5
    expect(timers).toEqual([6, 12, 24]);
  });

  it('does not retry a 400', async () => {
    const server = await serve(() => ({
      type: 'status',
      status: 400,
      body: JSON.stringify({ error: { message: 'max_tokens is too large' } }),
    }));
    const model = createOpenAIWorldModel({ baseUrl: server.baseUrl, model: 'm', ...client });
    await expect(model.predict(context, history, action)).rejects.toThrow(
      `${server.baseUrl}/v1/chat/completions answered HTTP 400: max_tokens is too large`,
    );
    expect(server.requests.length).toBe(1);
  });

  it('names a 200 that is neither a stream nor JSON, and does not retry it', async () => {
    // A proxy's error page with a success status (walk 48: read as a stream cut before [DONE]).
    const page = '<html><body>502 Bad Gateway\n<hr>nginx</body></html>';
    const server = await serve(() => ({
      type: 'status',
      status: 200,
      body: page,
      contentType: 'text/html; charset=utf-8',
    }));
    const url = `${server.baseUrl}/v1/chat/completions`;
    const retrying = { ...client, retry: { attempts: 3, baseDelayMs: 1 } };
    const streaming = createOpenAIWorldModel({ baseUrl: server.baseUrl, model: 'm', ...retrying });
    await expect(streaming.predict(context, history, action)).rejects.toMatchObject({
      kind: 'protocol',
      attempts: 1,
      message: `${url} answered HTTP 200 with text/html where an event stream was asked for: <html><body>502 Bad Gateway <hr>nginx</body></html>`,
    });
    const plain = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      stream: false,
      ...retrying,
    });
    await expect(plain.predict(context, history, action)).rejects.toMatchObject({
      kind: 'protocol',
      attempts: 1,
      message: `${url} answered HTTP 200 with text/html that is not JSON: <html><body>502 Bad Gateway <hr>nginx</body></html>`,
    });
    expect(server.requests.length).toBe(2);
  });

  it('retries network errors and streams cut before [DONE]', async () => {
    const closed = await startStubServer(() => ({ type: 'hang' }));
    const deadUrl = closed.baseUrl;
    await closed.close();
    const dead = createOpenAIWorldModel({
      baseUrl: deadUrl,
      model: 'm',
      ...client,
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    const error = await dead.predict(context, history, action).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'network', attempts: 2 });
    expect(error instanceof Error ? error.message : '').toMatch(
      /^request to http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed: nothing accepted the connection; is the server running on that port\?; gave up after 2 attempts$/,
    );

    const server = await serve((index) =>
      index === 0
        ? { type: 'completion', content: '', omitDone: true }
        : { type: 'completion', content: 'done' },
    );
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    const prediction = await model.predict(context, history, action);
    expect([prediction.observation.content, server.requests.length]).toEqual(['done', 2]);
  });

  it('does not retry a stream cut after text reached the caller', async () => {
    const server = await serve(() => ({ type: 'completion', content: 'partial', omitDone: true }));
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      retry: { attempts: 3, baseDelayMs: 1 },
    });
    const tokens: string[] = [];
    const error = await model
      .predict(context, history, action, { onToken: (text) => tokens.push(text) })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      kind: 'network',
      attempts: 1,
      message: `${server.baseUrl}/v1/chat/completions ended the stream before [DONE]`,
    });
    expect([tokens.join(''), server.requests.length]).toEqual(['partial', 1]);
  });

  it('never has more requests in flight than the limit, with several endpoints balanced', async () => {
    const [first, second] = [await serve(slowReply), await serve(slowReply)];
    if (first === undefined || second === undefined) throw new Error('servers did not start');
    const pool = createEndpointPool(
      [
        { baseUrl: first.baseUrl, model: 'a', maxConcurrency: 3 },
        { baseUrl: second.baseUrl, model: 'b', maxConcurrency: 5 },
      ],
      client,
    );
    const model = createOpenAIWorldModel({ pool });
    const predictions = await Promise.all(
      Array.from({ length: 48 }, () => model.predict(context, history, action)),
    );
    expect(predictions.every((prediction) => prediction.observation.content === 'x')).toBe(true);
    expect([first.peakInFlight, second.peakInFlight]).toEqual([3, 5]);
    expect(first.requests.length + second.requests.length).toBe(48);
    expect(model.stats().map((stats) => [stats.peakInFlight, stats.inFlight])).toEqual([
      [3, 0],
      [5, 0],
    ]);
    expect(model.id).toBe('openai:a,b');
  });

  it('cancels a request in flight and one waiting for a slot', async () => {
    const server = await serve(() => ({ type: 'hang' }));
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      maxConcurrency: 1,
    });
    const sent = new AbortController();
    const waiting = new AbortController();
    const first = model.predict(context, history, action, { signal: sent.signal });
    const second = model.predict(context, history, action, { signal: waiting.signal });
    await server.waitFor((stub) => stub.requests.length === 1);
    waiting.abort();
    await expect(second).rejects.toMatchObject({ kind: 'aborted', attempts: 0 });
    sent.abort();
    await expect(first).rejects.toMatchObject({
      kind: 'aborted',
      message: `request to ${server.baseUrl}/v1/chat/completions was cancelled`,
    });
    await server.waitFor((stub) => stub.clientAborts === 1);
    expect([server.requests.length, server.clientAborts, server.inFlight]).toEqual([1, 1, 0]);
    expect(model.stats()[0]?.inFlight).toBe(0);
  });

  it('times out a hanging request with a clear error', async () => {
    const server = await serve(() => ({ type: 'hang' }));
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      timeoutMs: 150,
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    const error = await model.predict(context, history, action).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'timeout', attempts: 2 });
    expect(error instanceof Error ? error.message : '').toBe(
      `request to ${server.baseUrl}/v1/chat/completions timed out after 150 ms (attempt 2 of 2); gave up after 2 attempts`,
    );
    expect(server.requests.length).toBe(2);
  });

  it('gives up on a stream that sends nothing for the idle time, not the whole time', async () => {
    const server = await serve(() => ({ type: 'hang' }));
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      idleTimeoutMs: 150,
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    await expect(model.predict(context, history, action)).rejects.toMatchObject({
      kind: 'timeout',
      attempts: 2,
      message: `request to ${server.baseUrl}/v1/chat/completions sent nothing for 150 ms (attempt 2 of 2); gave up after 2 attempts`,
    });
    // A stream that keeps sending is never idle, however long it takes in all: pieces every
    // 60 ms, 8 of them, against an idle limit of 150 ms.
    const steady = await serve(() => ({
      type: 'completion',
      content: 'x'.repeat(8),
      chunkSize: 1,
      pieceDelayMs: 60,
    }));
    const patient = createOpenAIWorldModel({
      baseUrl: steady.baseUrl,
      model: 'm',
      ...client,
      idleTimeoutMs: 150,
      retry: { attempts: 1, baseDelayMs: 1 },
    });
    expect((await patient.predict(context, history, action)).observation.content).toBe('xxxxxxxx');
  });

  it('sums token usage and cost exactly', async () => {
    const server = await serve((index) => ({
      type: 'completion',
      content: `r${index}`,
      usage: { prompt: 1000 + index, completion: 10 * index },
    }));
    const model = createOpenAIWorldModel({
      baseUrl: server.baseUrl,
      model: 'm',
      ...client,
      maxConcurrency: 4,
      pricing: { inputPerMillion: 0.5, outputPerMillion: 2 },
    });
    const predictions = await Promise.all(
      Array.from({ length: 20 }, () => model.predict(context, history, action)),
    );
    const input = predictions.reduce((sum, prediction) => sum + prediction.usage.inputTokens, 0);
    const output = predictions.reduce((sum, prediction) => sum + prediction.usage.outputTokens, 0);
    // Σ(1000 + i) and Σ 10·i for i = 0…19
    expect([input, output]).toEqual([20_190, 1_900]);
    expect(model.stats()[0]).toMatchObject({
      inputTokens: 20_190,
      outputTokens: 1_900,
      costUsd: (20_190 * 0.5 + 1_900 * 2) / 1_000_000,
    });
    expect(model.stats()[0]?.costUsd).toBe(0.013895);
    const first = predictions.find((prediction) => prediction.observation.content === 'r0');
    expect(first?.provenance.detail?.['costUsd']).toBe(0.0005);
  });

  it('refuses endpoints outside the host allowlist', () => {
    expect(() =>
      createOpenAIWorldModel({ baseUrl: 'http://10.0.0.5:8000', model: 'm', fetch }),
    ).toThrow(
      'endpoint host "10.0.0.5" (http://10.0.0.5:8000) is not in the allowlist [127.0.0.1, localhost, ::1]',
    );
  });
});
