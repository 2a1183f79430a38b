import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { AccountsPanel } from './accounts-panel';

afterEach(cleanup);

const ROSA = { kind: 'user', userId: '1', name: 'rosa', role: 'researcher' };
const OWNER = { kind: 'user', userId: 'local-owner', name: 'owner', role: 'researcher' };

function account(id: string, name: string, role: string) {
  return { id, name, role, createdAt: '2026-12-04T05:00:00.000Z' };
}

/** The panel over a fake API: `users` answers the list, `onChange` each add or remove. */
function renderPanel(principal: unknown, users: unknown[], onChange: (call: ApiCall) => unknown) {
  const api = fakeApiClient((call) => {
    if (call.path === 'auth.whoami') return principal;
    if (call.path === 'auth.users.list') return users;
    return onChange(call);
  });
  renderWithApi(<AccountsPanel />, api.client);
  return api;
}

function fillNewAccount(name: string, password: string, role?: string) {
  const form = screen.getByRole('form', { name: 'New account' });
  fireEvent.change(within(form).getByLabelText('Name'), { target: { value: name } });
  fireEvent.change(within(form).getByLabelText('Password'), { target: { value: password } });
  if (role !== undefined)
    fireEvent.change(within(form).getByLabelText('Role'), { target: { value: role } });
  fireEvent.click(within(form).getByRole('button', { name: 'Add account' }));
}

describe('AccountsPanel', () => {
  it('lists the accounts, offers no removal of your own, and adds a labeler by default', async () => {
    const api = renderPanel(
      ROSA,
      [account('1', 'rosa', 'researcher'), account('2', 'lena', 'labeler')],
      (call) =>
        call.path === 'auth.users.add' ? account('3', 'mia', 'labeler') : { removed: true },
    );
    const rosa = await screen.findByTestId('account-rosa');
    expect(rosa.textContent).toBe('rosaresearcher2026-12-04you (change yours from the header)');
    expect(within(rosa).queryAllByRole('button')).toEqual([]);
    // Removal asks once more, naming the person, before anything is sent.
    const lena = screen.getByTestId('account-lena');
    fireEvent.click(within(lena).getByRole('button', { name: 'Remove' }));
    expect(lena.textContent).toContain(
      'Remove lena? They can no longer log in; their labels stay.',
    );
    fireEvent.click(within(lena).getByRole('button', { name: 'Cancel' }));
    expect(api.calls.some((call) => call.path === 'auth.users.remove')).toBe(false);
    fireEvent.click(within(lena).getByRole('button', { name: 'Remove' }));
    fireEvent.click(within(lena).getByRole('button', { name: 'Remove lena' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Removed lena.'));
    expect(api.calls.find((call) => call.path === 'auth.users.remove')?.input).toEqual({
      name: 'lena',
    });
    fillNewAccount(' mia ', 'mia-password-1');
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Added labeler mia.'));
    expect(api.calls.find((call) => call.path === 'auth.users.add')?.input).toEqual({
      name: 'mia',
      role: 'labeler',
      password: 'mia-password-1',
    });
  });

  it("says the owner's first account must be a researcher's and ends open access", async () => {
    const api = renderPanel(OWNER, [], (call) =>
      call.path === 'auth.users.add' ? account('1', 'rosa', 'researcher') : null,
    );
    expect((await screen.findByText(/Nobody logs in yet/)).textContent).toBe(
      'Nobody logs in yet: on 127.0.0.1 this browser is the owner. The first account must be a researcher: once it exists everyone logs in, you included.',
    );
    expect(screen.queryByRole('table', { name: 'Accounts list' })).toBeNull();
    fillNewAccount('rosa', 'rosa-password-1');
    await waitFor(() =>
      expect(api.calls.find((call) => call.path === 'auth.users.add')?.input).toEqual({
        name: 'rosa',
        role: 'researcher',
        password: 'rosa-password-1',
      }),
    );
    // The owner's session has ended: who they are is asked again, so the login page can show.
    await waitFor(() =>
      expect(api.calls.filter((call) => call.path === 'auth.whoami')).toHaveLength(2),
    );
  });

  it("shows the server's refusal beside the form", async () => {
    renderPanel(ROSA, [account('1', 'rosa', 'researcher')], () => {
      throw new Error('a user named rosa already exists');
    });
    await screen.findByTestId('account-rosa');
    fillNewAccount('rosa', 'rosa-password-2', 'researcher');
    expect((await screen.findByRole('alert')).textContent).toBe('a user named rosa already exists');
  });
});

describe('AccountsPanel roles', () => {
  it("makes a labeler a researcher from the account's row, then asks for the list again", async () => {
    const api = renderPanel(
      ROSA,
      [account('1', 'rosa', 'researcher'), account('2', 'lena', 'labeler')],
      (call) => (call.path === 'auth.users.setRole' ? { changed: true } : null),
    );
    const lena = await screen.findByTestId('account-lena');
    fireEvent.click(within(lena).getByRole('button', { name: 'Make researcher' }));
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe(
        'lena is now a researcher; it applies at their next request.',
      ),
    );
    expect(api.calls.find((call) => call.path === 'auth.users.setRole')?.input).toEqual({
      name: 'lena',
      role: 'researcher',
    });
    // The list is asked again, so the row shows what the server now holds.
    expect(api.calls.filter((call) => call.path === 'auth.users.list').length).toBeGreaterThan(1);
  });
});
