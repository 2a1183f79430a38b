import { describe, expect, it } from 'vitest';
import {
  createLoginLimiter,
  DEFAULT_LOGIN_LIMITS,
  loginSource,
  type LoginAdmission,
} from './login-limiter';

function clock(start = 1_000_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

function admitted(admission: LoginAdmission): { finish(succeeded: boolean): void } {
  if (!admission.ok) throw new Error(admission.reason);
  return admission;
}

/** Resolves with whether `promise` settled within the current turn of the event loop. */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('the login limiter', () => {
  it('checks two passwords at once; other sources wait their turn, one check each', async () => {
    const limiter = createLoginLimiter();
    const first = admitted(await limiter.admit('rosa', 'attacker'));
    const second = admitted(await limiter.admit('lena', 'other'));
    // The attacker's second guess is refused at once: one check per source, running or waiting.
    expect(await limiter.admit('mia', 'attacker')).toEqual({
      ok: false,
      reason: 'a login from this address is already being checked: try again in a second',
      retryAfterSeconds: 1,
    });
    // Another address waits for a free check, and gets the next one.
    const bob = limiter.admit('bob', 'bob-laptop');
    expect(await settledNow(bob)).toBe(false);
    first.finish(false);
    expect(await settledNow(bob)).toBe(true);
    admitted(await bob).finish(true);
    second.finish(true);
    admitted(await limiter.admit('mia', 'attacker')).finish(true);
  });

  it('serves waiting sources in turn, so a flood from one address delays another by one check', async () => {
    const limiter = createLoginLimiter({ ...DEFAULT_LOGIN_LIMITS, maxInFlight: 1 });
    const order: string[] = [];
    const holder = admitted(await limiter.admit('x', 'a'));
    const waits = ['b', 'c', 'd'].map(async (source) => {
      admitted(await limiter.admit('x', source)).finish(false);
      order.push(source);
    });
    holder.finish(false);
    await Promise.all(waits);
    expect(order).toEqual(['b', 'c', 'd']);
  });

  it('makes a name wait after five failures in a row from one source, never from another', async () => {
    const { time, now } = clock();
    const limiter = createLoginLimiter(DEFAULT_LOGIN_LIMITS, now);
    for (let attempt = 0; attempt < 5; attempt++) {
      admitted(await limiter.admit('rosa', 'attacker')).finish(false);
    }
    // The fifth failure asks for 2 s before that source's sixth attempt, whatever the password.
    expect(await limiter.admit(' Rosa ', 'attacker')).toEqual({
      ok: false,
      reason: 'too many failed logins for Rosa: try again in 2 s',
      retryAfterSeconds: 2,
    });
    // Rosa herself, from her own machine, is not held up by the guesses.
    admitted(await limiter.admit('rosa', 'rosa-laptop')).finish(true);
    time.now += 2_000;
    admitted(await limiter.admit('rosa', 'attacker')).finish(false);
    expect(await limiter.admit('rosa', 'attacker')).toMatchObject({
      ok: false,
      retryAfterSeconds: 4,
    });
    time.now += 4_000;
    admitted(await limiter.admit('rosa', 'attacker')).finish(true);
    admitted(await limiter.admit('rosa', 'attacker')).finish(true);
  });

  it('never makes a source wait more than a minute between tries', async () => {
    const { time, now } = clock();
    const limiter = createLoginLimiter(DEFAULT_LOGIN_LIMITS, now);
    const waits: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      let admission = await limiter.admit('rosa', 'attacker');
      if (!admission.ok) {
        waits.push(admission.retryAfterSeconds);
        time.now += admission.retryAfterSeconds * 1000;
        admission = await limiter.admit('rosa', 'attacker');
      }
      admitted(admission).finish(false);
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60]);
  });
});

describe('the source a login counts against', () => {
  it('is one for every loopback address, and the /64 of an IPv6 client', () => {
    expect(
      ['127.0.0.1', '127.0.0.61', '127.255.0.9', '::1', '::ffff:127.0.0.2'].map(loginSource),
    ).toEqual(['loopback', 'loopback', 'loopback', 'loopback', 'loopback']);
    expect(loginSource('192.168.1.20')).toBe('192.168.1.20');
    expect(loginSource('::ffff:10.0.0.3')).toBe('10.0.0.3');
    expect(loginSource('2001:db8:0:12:aaaa::1')).toBe('2001:db8:0:12::/64');
    expect(loginSource('2001:DB8:0:12:bbbb:1:2:3')).toBe('2001:db8:0:12::/64');
    expect(loginSource('fe80::1')).toBe('fe80:0:0:0::/64');
  });
});
