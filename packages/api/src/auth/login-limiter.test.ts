import { describe, expect, it } from 'vitest';
import { createLoginLimiter, DEFAULT_LOGIN_LIMITS } from './login-limiter';

function clock(start = 1_000_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

describe('the login limiter', () => {
  it('runs at most two password checks at once and refuses the rest at once', () => {
    const limiter = createLoginLimiter();
    const first = limiter.admit('rosa');
    const second = limiter.admit('lena');
    const third = limiter.admit('mia');
    expect([first.ok, second.ok, third]).toEqual([
      true,
      true,
      {
        ok: false,
        reason: 'the server is checking other logins: try again in a second',
        retryAfterSeconds: 1,
      },
    ]);
    if (first.ok) first.finish(true);
    expect(limiter.admit('mia').ok).toBe(true);
  });

  it('makes a name wait after five failures in a row, doubling, and forgets them on success', () => {
    const { time, now } = clock();
    const limiter = createLoginLimiter(DEFAULT_LOGIN_LIMITS, now);
    const fail = (name: string) => {
      const admitted = limiter.admit(name);
      if (!admitted.ok) throw new Error(admitted.reason);
      admitted.finish(false);
    };
    for (let attempt = 0; attempt < 5; attempt++) fail('rosa');
    // The fifth failure asks for 2 s before the sixth attempt, whatever the password.
    expect(limiter.admit(' Rosa ')).toEqual({
      ok: false,
      reason: 'too many failed logins for Rosa: try again in 2 s',
      retryAfterSeconds: 2,
    });
    // Other names are not held up.
    expect(limiter.admit('lena').ok).toBe(true);
    time.now += 2_000;
    fail('rosa');
    expect(limiter.admit('rosa')).toMatchObject({ ok: false, retryAfterSeconds: 4 });
    time.now += 4_000;
    const right = limiter.admit('rosa');
    if (!right.ok) throw new Error(right.reason);
    right.finish(true);
    expect(limiter.admit('rosa').ok).toBe(true);
  });

  it('never makes a name wait more than a minute', () => {
    const { time, now } = clock();
    const limiter = createLoginLimiter(DEFAULT_LOGIN_LIMITS, now);
    const waits: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      let admitted = limiter.admit('rosa');
      if (!admitted.ok) {
        waits.push(admitted.retryAfterSeconds);
        time.now += admitted.retryAfterSeconds * 1000;
        admitted = limiter.admit('rosa');
      }
      if (!admitted.ok) throw new Error(admitted.reason);
      admitted.finish(false);
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60]);
    expect(limiter.admit('rosa')).toMatchObject({ ok: false, retryAfterSeconds: 60 });
  });
});
