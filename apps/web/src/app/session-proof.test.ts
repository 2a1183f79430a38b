import { afterEach, describe, expect, it } from 'vitest';
import {
  forgetSessionProof,
  keepSessionProof,
  sessionHeaders,
  takeSessionProofFromLocation,
  withSessionProof,
} from './session-proof';

describe('the page’s session proof', () => {
  afterEach(() => {
    forgetSessionProof();
    window.history.replaceState(null, '', '/');
  });

  it('takes the proof the owner’s link lands with, and takes it out of the address bar', () => {
    window.history.replaceState(null, '', '/datasets/3/compare?step=2#session-proof=abc_-9');
    takeSessionProofFromLocation();
    expect(window.location.pathname + window.location.search + window.location.hash).toBe(
      '/datasets/3/compare?step=2',
    );
    expect(sessionHeaders()).toEqual({ 'x-terrarium-session-proof': 'abc_-9' });
  });

  it('leaves any other fragment alone, the login page’s “link refused” among them', () => {
    window.history.replaceState(null, '', '/#owner-link-refused');
    takeSessionProofFromLocation();
    expect(window.location.hash).toBe('#owner-link-refused');
    expect(sessionHeaders()).toEqual({});
  });

  it('puts the proof in a URL for what sends no headers, and forgets it at logout', () => {
    expect(withSessionProof('/trpc')).toBe('/trpc');
    keepSessionProof('p+q/r');
    expect(withSessionProof('/trpc')).toBe('/trpc?session_proof=p%2Bq%2Fr');
    expect(withSessionProof('/api/bench/results?run=7')).toBe(
      '/api/bench/results?run=7&session_proof=p%2Bq%2Fr',
    );
    forgetSessionProof();
    expect(sessionHeaders()).toEqual({});
  });
});
