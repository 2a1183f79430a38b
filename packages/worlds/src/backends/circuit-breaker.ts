import { EndpointError } from '../openai/errors';
import type { EndpointPool } from '../openai/endpoint-pool';
import type { Now, WorldModel } from '../world-model';

export interface CircuitBreakerOptions {
  /** Consecutive unreachable answers (network errors, timeouts) that open the circuit (default 5). */
  threshold?: number;
  /** After this long open, one call is let through to test the endpoint again (default 30 s). */
  cooldownMs?: number;
  now?: Now;
}

export class CircuitOpenError extends EndpointError {
  override name = 'CircuitOpenError';
}

function unreachable(error: unknown): boolean {
  return error instanceof EndpointError && (error.kind === 'network' || error.kind === 'timeout');
}

/**
 * A refused connection: nothing listens on that port. Unlike a timeout or a reset it does not come
 * and go with load, and the pool has already retried it with backoff, so one is enough to open.
 */
function refused(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 8; depth++) {
    if ('code' in at && at.code === 'ECONNREFUSED') return true;
    at = at.cause;
  }
  return false;
}

export interface CircuitBreaker {
  /** Runs `call` unless the circuit is open (then throws a CircuitOpenError without calling). */
  run<T>(call: () => Promise<T>): Promise<T>;
}

/**
 * Fails fast once an endpoint has been unreachable several times in a row, or has refused the
 * connection once. Without it a bench run
 * (or a simulation of a 500-step trajectory, or a judge asked about every item) against a mistyped
 * port spends every call's full retry budget (four attempts with backoff) before recording it as
 * failed; with it the rest fail at once, each saying why, and the endpoint is tried again after the
 * cool-down (so a server that comes back is used again). HTTP errors and bad answers do not count:
 * the endpoint is there.
 */
export function createCircuitBreaker(
  name: string,
  options: CircuitBreakerOptions = {},
): CircuitBreaker {
  const threshold = options.threshold ?? 5;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const now = options.now ?? (() => performance.now());
  let failures = 0;
  let openedAt: number | null = null;
  let lastError = '';
  return {
    async run(call) {
      if (openedAt !== null && now() - openedAt < cooldownMs) {
        // Shown beside a run's count of failed predictions, so it counts calls, not "failures".
        const tried = failures === 1 ? '' : ` on ${failures} calls in a row`;
        const wait = Math.ceil((cooldownMs - (now() - openedAt)) / 1000);
        throw new CircuitOpenError(
          `${name} could not be reached${tried} (last: ${lastError}); it is not called again for ${wait} s`,
          'network',
          name,
          0,
        );
      }
      try {
        const result = await call();
        failures = 0;
        openedAt = null;
        return result;
      } catch (error) {
        if (unreachable(error)) {
          failures++;
          lastError = error instanceof Error ? error.message : String(error);
          // A failed trial after the cool-down reopens at once.
          if (failures >= threshold || openedAt !== null || refused(error)) openedAt = now();
        }
        throw error;
      }
    },
  };
}

/** A world model behind a circuit breaker (see `createCircuitBreaker`). */
export function withCircuitBreaker(
  model: WorldModel,
  options: CircuitBreakerOptions = {},
): WorldModel {
  const breaker = createCircuitBreaker(model.id, options);
  return {
    id: model.id,
    predict: (context, history, action, predictOptions) =>
      breaker.run(() => model.predict(context, history, action, predictOptions)),
  };
}

/** An endpoint pool behind a circuit breaker, for callers that speak to it directly (judges). */
export function withPoolCircuitBreaker(
  pool: EndpointPool,
  options: CircuitBreakerOptions = {},
): EndpointPool {
  const breaker = createCircuitBreaker(
    pool.endpoints.map((endpoint) => `openai:${endpoint.baseUrl}#${endpoint.model}`).join(', '),
    options,
  );
  return {
    endpoints: pool.endpoints,
    stats: () => pool.stats(),
    complete: (request) => breaker.run(() => pool.complete(request)),
  };
}
