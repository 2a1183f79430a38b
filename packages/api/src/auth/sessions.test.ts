import { describe, expect, it } from 'vitest';
import { sessionCookieName } from './sessions';

describe('the session cookie name', () => {
  it('is one per port, so two servers on one host keep their own cookie', () => {
    expect([sessionCookieName(4317), sessionCookieName(4318)]).toEqual([
      'terrarium_session_4317',
      'terrarium_session_4318',
    ]);
  });
});
