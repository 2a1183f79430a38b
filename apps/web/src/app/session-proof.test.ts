import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  readOwnerLinkFragment,
  forgetSessionProof,
  keepSessionProof,
  onSessionProofChange,
  takeOwnerLinkRefusal,
  sessionHeaders,
  withSessionProof,
} from './session-proof';

/** `auth.whoami` as the server answers it for this principal (e2e drives the real server). */
function answerWhoami(principal: Record<string, string>): void {
  vi.stubGlobal('fetch', () =>
    Promise.resolve(new Response(JSON.stringify({ result: { data: principal } }))),
  );
}
/** What a change of localStorage in another tab of this origin fires here. */
function fromOtherTab(key: string | null): void {
  window.dispatchEvent(new StorageEvent('storage', { key, newValue: 'x' }));
}
const OWNER = { kind: 'user', userId: 'local-owner', name: 'owner', role: 'researcher' };

describe('the page’s session proof', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    forgetSessionProof();
    window.history.replaceState(null, '', '/');
  });

  it('keeps the proof the owner’s link lands with, and takes it out of the address bar', async () => {
    answerWhoami(OWNER);
    window.history.replaceState(null, '', '/datasets/3/compare?step=2#session-proof=abc_-9');
    await readOwnerLinkFragment();
    expect(window.location.pathname + window.location.search + window.location.hash).toBe(
      '/datasets/3/compare?step=2',
    );
    expect(sessionHeaders()).toEqual({ 'x-terrarium-session-proof': 'abc_-9' });
  });

  it('drops a fragment’s proof that is not the local owner’s, keeping the page’s own', async () => {
    // walk 42: a page on another port sent the browser here with its own account's proof.
    keepSessionProof('rosas-proof');
    answerWhoami({ kind: 'user', userId: '2', name: 'lena', role: 'labeler' });
    window.history.replaceState(null, '', '/labeling#session-proof=lenas-proof');
    await readOwnerLinkFragment();
    expect(window.location.hash).toBe('');
    expect(sessionHeaders()).toEqual({ 'x-terrarium-session-proof': 'rosas-proof' });
    // An ended session (an old history entry) reads anonymous: dropped too.
    answerWhoami({ kind: 'anonymous' });
    window.history.replaceState(null, '', '/#session-proof=ended');
    await readOwnerLinkFragment();
    expect(sessionHeaders()).toEqual({ 'x-terrarium-session-proof': 'rosas-proof' });
  });

  it('takes the “link refused” fragment out of the address bar and remembers it for the login page', async () => {
    // A reload, or a bookmark of the page, showed the refusal again (walk 42).
    window.history.replaceState(null, '', '/labeling#owner-link-refused');
    await readOwnerLinkFragment();
    expect([window.location.pathname, window.location.hash]).toEqual(['/labeling', '']);
    // Said once: a logout later in this page load does not repeat it.
    expect([takeOwnerLinkRefusal(), takeOwnerLinkRefusal()]).toEqual([true, false]);
    expect(sessionHeaders()).toEqual({});
  });

  it('leaves any other fragment alone', async () => {
    window.history.replaceState(null, '', '/datasets#step-4');
    await readOwnerLinkFragment();
    expect(window.location.hash).toBe('#step-4');
  });

  it('tells the page when another tab logs in or out, and nothing else', () => {
    const heard: string[] = [];
    const stop = onSessionProofChange(() => heard.push('changed'));
    fromOtherTab('terrarium.sessionProof');
    fromOtherTab('terrarium.labelDrafts');
    fromOtherTab(null);
    stop();
    fromOtherTab('terrarium.sessionProof');
    expect(heard).toEqual(['changed', 'changed']);
  });

  it('puts the proof in the event stream’s URL, and forgets it at logout', () => {
    expect(withSessionProof('/trpc')).toBe('/trpc');
    keepSessionProof('p+q/r');
    expect(withSessionProof('/trpc')).toBe('/trpc?session_proof=p%2Bq%2Fr');
    forgetSessionProof();
    expect(sessionHeaders()).toEqual({});
  });
});
