/**
 * Keeps password guessing slow and cheap for the server. A password check is deliberately costly
 * (scrypt, on Node's small thread pool that file reads share), so:
 * - at most `maxInFlight` checks run at once, server-wide: a burst (one tRPC batch can carry
 *   dozens of `auth.login` calls) is refused at once instead of stalling every page load;
 * - after `freeFailures` failures in a row for one name, each further attempt for that name waits
 *   for a delay that doubles with every failure (up to `maxDelayMs`); a success clears it.
 * By name rather than by address: behind a proxy every client has the proxy's address, and an
 * attacker has many. The price is that someone guessing at a name slows its owner down too, never
 * by more than `maxDelayMs`.
 */
export interface LoginLimits {
  maxInFlight: number;
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
  /** Names remembered at most; the longest idle are forgotten first. */
  maxNames: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  maxInFlight: 2,
  freeFailures: 5,
  firstDelayMs: 2_000,
  maxDelayMs: 60_000,
  maxNames: 10_000,
};

export type LoginAdmission =
  | { ok: true; finish(succeeded: boolean): void }
  | { ok: false; reason: string; retryAfterSeconds: number };

interface Failures {
  count: number;
  lastAt: number;
}

export function createLoginLimiter(
  limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
  now: () => number = Date.now,
) {
  let inFlight = 0;
  // Insertion order is recency order: a name is deleted and set again on every failure.
  const failures = new Map<string, Failures>();

  function delayAfter(count: number): number {
    const over = count - limits.freeFailures;
    if (over < 0) return 0;
    return Math.min(limits.maxDelayMs, limits.firstDelayMs * 2 ** over);
  }

  function admit(name: string): LoginAdmission {
    const key = name.trim().toLowerCase();
    const seen = failures.get(key);
    if (seen !== undefined) {
      const waitMs = seen.lastAt + delayAfter(seen.count) - now();
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        return {
          ok: false,
          reason: `too many failed logins for ${name.trim()}: try again in ${seconds} s`,
          retryAfterSeconds: seconds,
        };
      }
    }
    if (inFlight >= limits.maxInFlight) {
      return {
        ok: false,
        reason: 'the server is checking other logins: try again in a second',
        retryAfterSeconds: 1,
      };
    }
    inFlight += 1;
    let finished = false;
    return {
      ok: true,
      finish(succeeded) {
        if (finished) return;
        finished = true;
        inFlight -= 1;
        const before = failures.get(key);
        failures.delete(key);
        if (succeeded) return;
        failures.set(key, { count: (before?.count ?? 0) + 1, lastAt: now() });
        if (failures.size > limits.maxNames) {
          const oldest = failures.keys().next();
          if (oldest.done !== true) failures.delete(oldest.value);
        }
      },
    };
  }

  return { admit };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
