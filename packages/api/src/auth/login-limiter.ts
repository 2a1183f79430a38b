/**
 * Keeps password guessing slow and cheap for the server, without letting a guesser lock others
 * out. A password check is deliberately costly (scrypt, on Node's small thread pool that file
 * reads share), so:
 * - at most `maxInFlight` checks run at once, server-wide; the others wait their turn, one per
 *   source (client address) at a time, sources served in turn: a flood from one address (one
 *   tRPC batch can carry dozens of `auth.login` calls) delays another address's login by one
 *   check, never more, and a source that already has a check running or waiting is refused;
 * - after `freeFailures` failures in a row for a name from one source, each further attempt for
 *   that name from that source waits for a delay that doubles with every failure (up to
 *   `maxDelayMs`); a success clears it. Another source is not held up, so guessing at a name
 *   never locks its owner out. Behind a reverse proxy every client has the proxy's address, and
 *   these limits then apply to all of them together.
 */
/**
 * The source a login counts against, from the client's address. Every address of 127.0.0.0/8 (and
 * ::1) reaches a server bound to loopback, so a local program could take a fresh one for each
 * guess (walk 41: 60 guesses from 127.0.0.2-61, none held back): they are one source. An IPv6
 * client usually holds a whole /64, so it is that prefix.
 */
export function loginSource(address: string): string {
  const bare = address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  if (bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare)) return 'loopback';
  if (!bare.includes(':')) return bare;
  // Expand `::` to the zero groups it stands for, then keep the first four of eight.
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [
    ...left,
    ...Array.from({ length: 8 - left.length - right.length }, () => '0'),
    ...right,
  ];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export interface LoginLimits {
  maxInFlight: number;
  /** Sources waiting at most; beyond, a login is refused at once. */
  maxWaiting: number;
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
  /** (name, source) pairs remembered at most; the longest idle are forgotten first. */
  maxRemembered: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  maxInFlight: 2,
  maxWaiting: 64,
  freeFailures: 5,
  firstDelayMs: 2_000,
  maxDelayMs: 60_000,
  maxRemembered: 10_000,
};

export type LoginAdmission =
  | { ok: true; finish(succeeded: boolean): void }
  | { ok: false; reason: string; retryAfterSeconds: number };

interface Failures {
  count: number;
  lastAt: number;
}

function refused(reason: string, retryAfterSeconds: number): LoginAdmission {
  return { ok: false, reason, retryAfterSeconds };
}

export function createLoginLimiter(
  limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
  now: () => number = Date.now,
) {
  let running = 0;
  // Sources with a check running or waiting; a waiting one holds the start of its turn.
  const busy = new Set<string>();
  const waiting: { source: string; start: () => void }[] = [];
  // Insertion order is recency order: a key is deleted and set again on every failure.
  const failures = new Map<string, Failures>();

  function delayAfter(count: number): number {
    const over = count - limits.freeFailures;
    if (over < 0) return 0;
    return Math.min(limits.maxDelayMs, limits.firstDelayMs * 2 ** over);
  }

  function startNext(): void {
    const next = waiting.shift();
    if (next === undefined) return;
    running += 1;
    next.start();
  }

  async function admit(name: string, source: string): Promise<LoginAdmission> {
    const key = `${source} ${name.trim().toLowerCase()}`;
    const seen = failures.get(key);
    if (seen !== undefined) {
      const waitMs = seen.lastAt + delayAfter(seen.count) - now();
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        return refused(
          `too many failed logins for ${name.trim()}: try again in ${seconds} s`,
          seconds,
        );
      }
    }
    if (busy.has(source)) {
      return refused(
        'a login from this address is already being checked: try again in a second',
        1,
      );
    }
    if (running >= limits.maxInFlight && waiting.length >= limits.maxWaiting) {
      return refused('the server is checking many logins: try again in a second', 1);
    }
    busy.add(source);
    if (running < limits.maxInFlight) running += 1;
    else await new Promise<void>((start) => waiting.push({ source, start }));
    let finished = false;
    return {
      ok: true,
      finish(succeeded) {
        if (finished) return;
        finished = true;
        running -= 1;
        busy.delete(source);
        const before = failures.get(key);
        failures.delete(key);
        if (!succeeded) {
          failures.set(key, { count: (before?.count ?? 0) + 1, lastAt: now() });
          if (failures.size > limits.maxRemembered) {
            const oldest = failures.keys().next();
            if (oldest.done !== true) failures.delete(oldest.value);
          }
        }
        startNext();
      },
    };
  }

  return { admit };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
