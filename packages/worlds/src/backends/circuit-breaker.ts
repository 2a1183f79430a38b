import { EndpointError } from '../openai/errors';
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
 * Fails fast once an endpoint has been unreachable several times in a row. Without it a bench run
 * against a mistyped port spends every unit's full retry budget (four attempts with backoff) before
 * recording it as failed; with it the rest fail at once, each saying why, and the endpoint is tried
 * again after the cool-down (so a server that comes back is used again). HTTP errors and bad answers
 * do not count: the endpoint is there.
 */
export function withCircuitBreaker(
  model: WorldModel,
  options: CircuitBreakerOptions = {},
): WorldModel {
  const threshold = options.threshold ?? 5;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const now = options.now ?? (() => performance.now());
  let failures = 0;
  let openedAt: number | null = null;
  let lastError = '';
  return {
    id: model.id,
    async predict(context, history, action, predictOptions) {
      if (openedAt !== null && now() - openedAt < cooldownMs) {
        throw new CircuitOpenError(
          `${model.id} is unreachable (${failures} failures in a row, last: ${lastError}); not tried again for ${Math.ceil((cooldownMs - (now() - openedAt)) / 1000)} s`,
          'network',
          model.id,
          0,
        );
      }
      try {
        const prediction = await model.predict(context, history, action, predictOptions);
        failures = 0;
        openedAt = null;
        return prediction;
      } catch (error) {
        if (unreachable(error)) {
          failures++;
          lastError = error instanceof Error ? error.message : String(error);
          // A failed trial after the cool-down reopens at once.
          if (failures >= threshold || openedAt !== null) openedAt = now();
        }
        throw error;
      }
    },
  };
}
