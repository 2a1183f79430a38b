import type { ChatTransport, PoolOptions } from '@terrarium/worlds';
import { createUndiciTransport } from '@terrarium/worlds/undici';

let shared: ChatTransport | null = null;

/**
 * The one transport of this process for `openai:` simulators and judges: undici pools with
 * keep-alive connections, shared so connections are reused across requests, runs and judges.
 * Node's own fetch costs 3× the CPU per request (benchmarks/openai-client-throughput.ts).
 */
export function serverTransport(): ChatTransport {
  shared ??= createUndiciTransport();
  return shared;
}

/** Seconds from the environment as milliseconds: unset or not a number ≥ 0 keeps the default. */
function secondsFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/**
 * How the server reaches an endpoint: a caller's own fetch when it passed one (tests, a proxy),
 * else the server's transport; and its time limits, `TERRARIUM_ENDPOINT_TIMEOUT_S` per attempt
 * (default 600) and `TERRARIUM_ENDPOINT_IDLE_TIMEOUT_S` for a stream that sends nothing
 * (default 300), 0 for none.
 */
export function endpointClient(
  fetchImpl: typeof fetch | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Pick<PoolOptions, 'fetch' | 'transport' | 'timeoutMs' | 'idleTimeoutMs'> {
  const timeoutMs = secondsFromEnv(env['TERRARIUM_ENDPOINT_TIMEOUT_S']);
  const idleTimeoutMs = secondsFromEnv(env['TERRARIUM_ENDPOINT_IDLE_TIMEOUT_S']);
  return {
    ...(fetchImpl === undefined ? { transport: serverTransport() } : { fetch: fetchImpl }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  };
}
