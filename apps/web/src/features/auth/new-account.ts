// The account the local owner just made, for the login page that follows (the session that made it
// has ended, so nothing on the server can say it). Kept for this tab only.
const KEY = 'terrarium.new-account';

export function rememberNewAccount(name: string): void {
  sessionStorage.setItem(KEY, name);
}

/** The name remembered, once: a later visit to the login page is an ordinary one. */
export function takeNewAccount(): string | null {
  const name = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  return name;
}
