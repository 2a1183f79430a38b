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

/** A caller's own fetch when it passed one (tests, a proxy), else the server's transport. */
export function endpointClient(
  fetchImpl: typeof fetch | undefined,
): Pick<PoolOptions, 'fetch' | 'transport'> {
  return fetchImpl === undefined ? { transport: serverTransport() } : { fetch: fetchImpl };
}
