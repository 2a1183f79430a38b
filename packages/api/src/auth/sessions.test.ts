import { describe, expect, it } from 'vitest';
import { sessionCookieName } from './sessions';

describe('the session cookie name', () => {
  it('is one per program token, so two servers on one host keep their own cookie', () => {
    const first = sessionCookieName('first-servers-token-4a1f9c27d0');
    const second = sessionCookieName('second-servers-token-8be03d55a2');
    expect(first).not.toBe(second);
    expect(sessionCookieName('first-servers-token-4a1f9c27d0')).toBe(first);
    // A cookie-name token (RFC 6265): no separators, nothing to quote.
    expect([first, second].every((name) => /^terrarium_session_[\w-]{12}$/.test(name))).toBe(true);
  });
});
