import type { Usage } from '../world-model';
import { assertAllowedHost, chatCompletionsUrl, DEFAULT_ALLOWED_HOSTS } from './allowlist';
import {
  ChatCompletion,
  errorMessageOf,
  readChunk,
  requestBody,
  type ChatRequest,
} from './chat-protocol';
import { sleep, systemClock, type Clock } from './clock';
import { EndpointError, type EndpointErrorKind } from './errors';
import { SseParser } from './sse';
import { fetchTransport, replyText, type ChatTransport } from './transport';
import { networkFailure } from './network-failure';

function isJsonContentType(value: string | null): boolean {
  return value !== null && /^\s*application\/json\b/i.test(value);
}

function isEventStream(value: string | null): boolean {
  return value !== null && /^\s*text\/event-stream\b/i.test(value);
}

/**
 * A successful status with a body that is not what was asked for: a proxy's error page, or a server
 * that is not an OpenAI endpoint (walk 48: an nginx "502 Bad Gateway" page answered 200 read as
 * "ended the stream before [DONE]" and was retried 4 times). Said with what came back; the caller
 * does not retry it, since the same URL answers the same.
 */
/** Read of a body that is only quoted: `excerpt` shows 300 characters of it, whitespace folded. */
const QUOTED_CHARS = 4096;

function unreadable(
  url: string,
  status: number,
  contentType: string | null,
  complaint: string,
  text: string,
): string {
  const type = contentType?.split(';')[0]?.trim() ?? '';
  const what = type === '' ? 'a body with no content type' : type;
  return `${url} answered HTTP ${status} with ${what} ${complaint}${text.trim() === '' ? ' (empty)' : `: ${excerpt(text)}`}`;
}

/** US dollars per million tokens. */
export interface Pricing {
  inputPerMillion: number;
  outputPerMillion: number;
}

export interface EndpointConfig {
  /** e.g. `http://127.0.0.1:8000` or `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Requests in flight at once on this endpoint (default 8). */
  maxConcurrency?: number;
  pricing?: Pricing;
}

export interface RetryPolicy {
  /** Attempts in all, the first included (1 = no retry). */
  attempts: number;
  /** Wait before the first retry; doubled for each further one, with jitter. */
  baseDelayMs: number;
  /** Longest wait (default 60 s); a Retry-After asking for more fails the request instead. */
  maxDelayMs?: number;
}

export interface PoolOptions {
  /** How requests are sent: a `fetch`, or a transport (which wins when both are given). */
  fetch?: typeof fetch;
  /** e.g. `createUndiciTransport()` from `@terrarium/worlds/undici` on a server. */
  transport?: ChatTransport;
  retry?: RetryPolicy;
  /** Per attempt, from sending to the last byte (default 600 s; 0 = none). */
  timeoutMs?: number;
  /**
   * Streamed attempts only: the longest wait for the reply's headers or the stream's next piece
   * (default 300 s; 0 = none). A streaming server sends as it generates, so a silent one is
   * stuck. A reply that turns out to be one JSON completion (a server that ignores `stream`) comes
   * whole at the end: once its headers are in, only `timeoutMs` applies.
   */
  idleTimeoutMs?: number;
  /** Hosts endpoints may be on (default: this machine only). */
  allowlist?: readonly string[];
  /** Said after a 401 or 403 from an endpoint given no key: how this app is told keys. */
  apiKeyHint?: string;
  clock?: Clock;
  /** In [0, 1), for backoff jitter. */
  random?: () => number;
}

export interface ChatResult {
  content: string;
  reasoningContent: string | null;
  /** Null when the endpoint reported no usage. */
  usage: Usage | null;
  finishReason: string | null;
  model: string;
  endpoint: string;
  attempts: number;
  /** Null without pricing or usage. */
  costUsd: number | null;
}

export interface EndpointStats {
  baseUrl: string;
  model: string;
  inFlight: number;
  peakInFlight: number;
  /** HTTP requests sent, retries included. */
  requests: number;
  completed: number;
  failed: number;
  retries: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

export interface EndpointPool {
  readonly endpoints: readonly EndpointConfig[];
  complete(request: ChatRequest): Promise<ChatResult>;
  stats(): EndpointStats[];
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 60_000 };
const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** What a timer that was never set cancels. */
function noTimer(): void {}
const DEFAULT_MAX_CONCURRENCY = 8;

interface EndpointState {
  config: EndpointConfig;
  url: string;
  maxConcurrency: number;
  inFlight: number;
  peakInFlight: number;
  requests: number;
  completed: number;
  failed: number;
  retries: number;
  inputTokens: number;
  outputTokens: number;
}

type Attempt =
  | { ok: true; result: Omit<ChatResult, 'attempts' | 'costUsd'> }
  | { ok: false; error: EndpointError; retryable: boolean; retryAfterMs: number | null };

interface Waiter {
  resolve(endpoint: EndpointState): void;
  detach(): void;
}

export function costOf(pricing: Pricing | undefined, usage: Usage | null): number | null {
  if (pricing === undefined || usage === null) return null;
  return (
    (usage.inputTokens * pricing.inputPerMillion + usage.outputTokens * pricing.outputPerMillion) /
    1_000_000
  );
}

function parseRetryAfter(value: string | null, clock: Clock): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - clock.epochMs());
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function transportOf(options: PoolOptions): ChatTransport {
  if (options.transport !== undefined) return options.transport;
  if (options.fetch !== undefined) return fetchTransport(options.fetch);
  throw new TypeError('an endpoint pool needs a fetch or a transport');
}

/**
 * Several OpenAI-compatible endpoints behind one `complete`: each request goes to the endpoint with
 * the fewest requests in flight relative to its limit, and waits in line when all are full. A 429,
 * a 5xx, a network error or a timeout is retried (released slot, exponential backoff with jitter,
 * at least the Retry-After the endpoint asked for, possibly on another endpoint) unless text was
 * already streamed to the caller. The caller's signal cancels at any point: waiting, sending,
 * streaming or backing off.
 */
export function createEndpointPool(
  endpoints: readonly EndpointConfig[],
  options: PoolOptions,
): EndpointPool {
  if (endpoints.length === 0) throw new TypeError('an endpoint pool needs at least one endpoint');
  const allowlist = options.allowlist ?? DEFAULT_ALLOWED_HOSTS;
  const retry = options.retry ?? DEFAULT_RETRY;
  const maxDelayMs = retry.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const transport = transportOf(options);
  if (!Number.isInteger(retry.attempts) || retry.attempts < 1) {
    throw new TypeError(`retry.attempts must be a positive integer, not ${retry.attempts}`);
  }

  const states: EndpointState[] = endpoints.map((config) => {
    assertAllowedHost(config.baseUrl, allowlist);
    const maxConcurrency = config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
      throw new TypeError(`maxConcurrency of ${config.baseUrl} must be a positive integer`);
    }
    return {
      config,
      url: chatCompletionsUrl(config.baseUrl),
      maxConcurrency,
      inFlight: 0,
      peakInFlight: 0,
      requests: 0,
      completed: 0,
      failed: 0,
      retries: 0,
      inputTokens: 0,
      outputTokens: 0,
    };
  });
  const waiters: Waiter[] = [];
  const poolName = states.map((state) => state.url).join(', ');

  function leastLoaded(): EndpointState | undefined {
    let best: EndpointState | undefined;
    for (const state of states) {
      if (state.inFlight >= state.maxConcurrency) continue;
      if (
        best === undefined ||
        state.inFlight * best.maxConcurrency < best.inFlight * state.maxConcurrency ||
        (state.inFlight * best.maxConcurrency === best.inFlight * state.maxConcurrency &&
          state.requests < best.requests)
      ) {
        best = state;
      }
    }
    return best;
  }

  function take(state: EndpointState): EndpointState {
    state.inFlight++;
    state.requests++;
    state.peakInFlight = Math.max(state.peakInFlight, state.inFlight);
    return state;
  }

  function acquire(signal: AbortSignal | undefined, attempts: number): Promise<EndpointState> {
    const free = waiters.length === 0 ? leastLoaded() : undefined;
    if (free !== undefined) return Promise.resolve(take(free));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(
          new EndpointError(
            `request to ${poolName} cancelled while waiting for a free slot`,
            'aborted',
            poolName,
            attempts,
            null,
            { cause: signal?.reason },
          ),
        );
      };
      const waiter: Waiter = {
        resolve,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  function release(state: EndpointState): void {
    state.inFlight--;
    for (let free = leastLoaded(); free !== undefined && waiters.length > 0; free = leastLoaded()) {
      const waiter = waiters.shift();
      if (waiter === undefined) break;
      waiter.detach();
      waiter.resolve(take(free));
    }
  }

  async function attemptOnce(
    state: EndpointState,
    request: ChatRequest,
    attempt: number,
  ): Promise<Attempt> {
    const { url, config } = state;
    const signal = request.signal;
    const stream = request.stream ?? true;
    // Not an AbortController: creating one (and its signal) per request was 4% of the client's CPU
    // at 256 in flight; the transport registers one listener and is told once.
    let cancelled: { reason: unknown } | null = null;
    let cancelListener: ((reason: unknown) => void) | null = null;
    const cancel = (reason: unknown) => {
      if (cancelled !== null) return;
      cancelled = { reason };
      cancelListener?.(reason);
    };
    const onCancel = (listener: (reason: unknown) => void) => {
      if (cancelled !== null) listener(cancelled.reason);
      else cancelListener = listener;
    };
    let timedOut: string | null = null;
    let streamed = false;
    const cancelTimer =
      timeoutMs > 0
        ? clock.setTimer(timeoutMs, () => {
            timedOut = `timed out after ${timeoutMs} ms`;
            cancel(new Error(timedOut));
          })
        : () => undefined;
    // Walk 48: a server that accepted the request and sent nothing held each attempt for the whole
    // 600 s. One timer per quiet period, not one per piece: pieces only note when they came.
    let lastPieceAt = clock.now();
    let cancelIdle = noTimer;
    const watchIdle = (ms: number) => {
      cancelIdle = clock.setTimer(ms, () => {
        const quiet = clock.now() - lastPieceAt;
        if (quiet < idleTimeoutMs) return watchIdle(idleTimeoutMs - quiet);
        timedOut = `sent nothing for ${idleTimeoutMs} ms`;
        cancel(new Error(timedOut));
      });
    };
    if (stream && idleTimeoutMs > 0) watchIdle(idleTimeoutMs);
    const onAbort = () => cancel(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const fail = (
      kind: EndpointErrorKind,
      message: string,
      retryable: boolean,
      extra: { status?: number; retryAfterMs?: number | null; cause?: unknown } = {},
    ): Attempt => ({
      ok: false,
      retryable,
      retryAfterMs: extra.retryAfterMs ?? null,
      error: new EndpointError(message, kind, url, attempt, extra.status ?? null, {
        cause: extra.cause,
      }),
    });
    try {
      const response = await transport(url, {
        headers: {
          'content-type': 'application/json',
          accept: stream ? 'text/event-stream' : 'application/json',
          ...(config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` }),
        },
        body: requestBody(config.model, request),
        onCancel,
      });
      if (response.status < 200 || response.status > 299) {
        const text = await replyText(response).catch(() => '');
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          // Not JSON: the raw text is the message.
        }
        const reason = errorMessageOf(parsed) ?? excerpt(text);
        const keyless =
          (response.status === 401 || response.status === 403) && config.apiKey === undefined
            ? ` (no API key was sent${options.apiKeyHint === undefined ? '' : `; ${options.apiKeyHint}`})`
            : '';
        return fail(
          'http',
          `${url} answered HTTP ${response.status}${reason === '' ? '' : `: ${reason}`}${keyless}`,
          response.status === 429 || response.status >= 500,
          {
            status: response.status,
            retryAfterMs: parseRetryAfter(response.header('retry-after'), clock),
          },
        );
      }
      lastPieceAt = clock.now();
      const contentType = response.header('content-type');
      // A server that ignores `stream: true` sends one JSON completion, which is read as one.
      if (!stream || isJsonContentType(contentType)) {
        cancelIdle();
        const text = await replyText(response);
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return fail(
            'protocol',
            unreadable(url, response.status, contentType, 'that is not JSON', text),
            false,
          );
        }
        const parsed = ChatCompletion.safeParse(body);
        if (!parsed.success) {
          const message = errorMessageOf(body) ?? parsed.error.issues[0]?.message ?? 'invalid';
          return fail('protocol', `${url} did not answer a chat completion: ${message}`, false);
        }
        const choice = parsed.data.choices[0];
        const usage = parsed.data.usage;
        return {
          ok: true,
          result: {
            content: choice?.message.content ?? '',
            reasoningContent:
              choice?.message.reasoning_content ?? choice?.message.reasoning ?? null,
            usage:
              usage === null || usage === undefined
                ? null
                : { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens },
            finishReason: choice?.finish_reason ?? null,
            model: parsed.data.model ?? config.model,
            endpoint: config.baseUrl,
          },
        };
      }
      // A stream without a content type is read as one; any other type is not a stream.
      if (contentType !== null && !isEventStream(contentType)) {
        const text = await replyText(response, QUOTED_CHARS).catch(() => '');
        const message = unreadable(
          url,
          response.status,
          contentType,
          'where an event stream was asked for',
          text,
        );
        return fail('protocol', message, false);
      }
      if (response.text === null) return fail('protocol', `${url} sent no response body`, false);
      let content = '';
      let reasoning: string | null = null;
      let usage: Usage | null = null;
      let finishReason: string | null = null;
      let model = config.model;
      let done = false;
      /** One event's data; a failed attempt when the event is not a chunk. */
      const onEvent = (data: string): Attempt | null => {
        // Read on to the end of the body after [DONE]: leaving early would cancel the body, and
        // undici then closes the connection instead of reusing it.
        if (done) return null;
        if (data.trim() === '[DONE]') {
          done = true;
          return null;
        }
        let json: unknown;
        try {
          json = JSON.parse(data);
        } catch {
          return fail(
            'protocol',
            `${url} streamed an event that is not JSON: ${excerpt(data)}`,
            false,
          );
        }
        const streamError = errorMessageOf(json);
        const chunk = streamError === null ? readChunk(json) : null;
        if (chunk === null) {
          return fail(
            'protocol',
            `${url} streamed ${streamError === null ? 'an event that is not a chunk' : 'an error'}: ${streamError ?? excerpt(data)}`,
            false,
          );
        }
        if (chunk.model !== null) model = chunk.model;
        if (chunk.usage !== null) {
          usage = {
            inputTokens: chunk.usage.prompt_tokens,
            outputTokens: chunk.usage.completion_tokens,
          };
        }
        finishReason = chunk.finishReason ?? finishReason;
        if (chunk.reasoning !== '') {
          reasoning = (reasoning ?? '') + chunk.reasoning;
          streamed = true;
          request.onToken?.(chunk.reasoning, 'reasoning');
        }
        if (chunk.content !== '') {
          content += chunk.content;
          streamed = true;
          request.onToken?.(chunk.content, 'content');
        }
        return null;
      };
      // Events parsed as each piece arrives: no promise per event, one per piece of the body.
      const parser = new SseParser();
      for await (const piece of response.text) {
        lastPieceAt = clock.now();
        for (const data of parser.push(piece)) {
          const failed = onEvent(data);
          if (failed !== null) return failed;
        }
      }
      for (const data of parser.end()) {
        const failed = onEvent(data);
        if (failed !== null) return failed;
      }
      if (!done) {
        return fail('network', `${url} ended the stream before [DONE]`, !streamed);
      }
      return {
        ok: true,
        result: {
          content,
          reasoningContent: reasoning,
          usage,
          finishReason,
          model,
          endpoint: config.baseUrl,
        },
      };
    } catch (error) {
      if (signal?.aborted === true) {
        return fail('aborted', `request to ${url} was cancelled`, false, { cause: signal.reason });
      }
      if (timedOut !== null) {
        return fail(
          'timeout',
          `request to ${url} ${timedOut} (attempt ${attempt} of ${retry.attempts})`,
          !streamed,
          { cause: error },
        );
      }
      return fail(
        'network',
        `request to ${url} failed: ${networkFailure(error)}${streamed ? ' (mid-stream)' : ''}`,
        !streamed,
        { cause: error },
      );
    } finally {
      cancelTimer();
      cancelIdle();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function complete(request: ChatRequest): Promise<ChatResult> {
    const signal = request.signal;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted === true) {
        throw new EndpointError(
          `request to ${poolName} was cancelled`,
          'aborted',
          poolName,
          attempt - 1,
          null,
          {
            cause: signal.reason,
          },
        );
      }
      const state = await acquire(signal, attempt - 1);
      let outcome: Attempt;
      try {
        outcome = await attemptOnce(state, request, attempt);
      } finally {
        release(state);
      }
      if (outcome.ok) {
        state.completed++;
        const usage = outcome.result.usage;
        if (usage !== null) {
          state.inputTokens += usage.inputTokens;
          state.outputTokens += usage.outputTokens;
        }
        return {
          ...outcome.result,
          attempts: attempt,
          costUsd: costOf(state.config.pricing, usage),
        };
      }
      const { error } = outcome;
      const exhausted = attempt >= retry.attempts;
      const backoff = Math.min(maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
      const waitMs = Math.max(outcome.retryAfterMs ?? 0, backoff * (0.5 + 0.5 * random()));
      if (!outcome.retryable || exhausted || (outcome.retryAfterMs ?? 0) > maxDelayMs) {
        state.failed++;
        if (!outcome.retryable) throw error;
        const why = exhausted
          ? `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`
          : `the endpoint asked to retry after ${Math.round((outcome.retryAfterMs ?? 0) / 1000)} s, more than maxDelayMs (${maxDelayMs} ms)`;
        throw new EndpointError(
          `${error.message}; ${why}`,
          error.kind,
          error.url,
          attempt,
          error.status,
          {
            cause: error.cause,
          },
        );
      }
      state.retries++;
      try {
        await sleep(clock, waitMs, signal);
      } catch (reason) {
        throw new EndpointError(
          `request to ${poolName} was cancelled`,
          'aborted',
          poolName,
          attempt,
          null,
          {
            cause: reason,
          },
        );
      }
    }
  }

  return {
    endpoints,
    complete,
    stats: () =>
      states.map((state) => ({
        baseUrl: state.config.baseUrl,
        model: state.config.model,
        inFlight: state.inFlight,
        peakInFlight: state.peakInFlight,
        requests: state.requests,
        completed: state.completed,
        failed: state.failed,
        retries: state.retries,
        inputTokens: state.inputTokens,
        outputTokens: state.outputTokens,
        costUsd: costOf(state.config.pricing, {
          inputTokens: state.inputTokens,
          outputTokens: state.outputTokens,
        }),
      })),
  };
}
