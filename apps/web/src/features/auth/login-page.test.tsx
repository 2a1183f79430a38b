import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { LoginHint, LoginPage, type Entry } from './login-page';

afterEach(cleanup);

function hintText(entry: Entry | null): string {
  render(<LoginHint made={null} entry={entry} />);
  return document.body.textContent ?? '';
}

const WITHOUT_RESEARCHER =
  'No account is a researcher’s, so nobody can add accounts on the page. On the machine Terrarium runs on, add one with pnpm terrarium users add NAME --role researcher, or make an account one with pnpm terrarium users role NAME --role researcher.';

const ORDINARY =
  'Log in with your account (a researcher adds accounts under Accounts on the Labeling page, or on the machine Terrarium runs on with pnpm terrarium users add).';

describe('LoginPage', () => {
  it('names the command when no account is a researcher’s, as auth.entry says on loopback', async () => {
    // Walk 52: the page sent people to Accounts on the Labeling page, which nobody could open.
    const api = fakeApiClient((call) =>
      call.path === 'auth.entry' ? { accounts: true, ownerLink: true, researcher: false } : null,
    );
    renderWithApi(<LoginPage />, api.client);
    await waitFor(() =>
      expect(screen.getByTestId('login-hint').textContent).toBe(WITHOUT_RESEARCHER),
    );
    expect(api.calls).toEqual([{ path: 'auth.entry', input: undefined }]);
  });

  it('gives advice that holds either way where the server does not say, and while it loads', () => {
    expect(hintText({ accounts: true, ownerLink: false, researcher: null })).toBe(ORDINARY);
    cleanup();
    expect(hintText({ accounts: true, ownerLink: true, researcher: true })).toBe(ORDINARY);
    cleanup();
    expect(hintText(null)).toBe(ORDINARY);
  });

  it('says how to make the first account on a fresh install', () => {
    expect(hintText({ accounts: false, ownerLink: true, researcher: false })).toBe(
      'No accounts yet. On the machine Terrarium runs on, open the link terrarium serve printed (it ends in ?token=…), or make the first researcher with pnpm terrarium users add NAME --role researcher.',
    );
    cleanup();
    expect(hintText({ accounts: false, ownerLink: false, researcher: null })).toBe(
      'No accounts yet. On the machine Terrarium runs on, make the first researcher with pnpm terrarium users add NAME --role researcher.',
    );
  });
});
