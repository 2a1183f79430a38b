/** The program token playwright.config.ts put into the environment for the served store. */
export function e2eToken(): string {
  const token = process.env.TERRARIUM_TOKEN;
  if (token === undefined || token === '') {
    throw new Error('TERRARIUM_TOKEN is not set: run the specs through e2e/playwright.config.ts');
  }
  return token;
}

/** Headers of a program request (what the CLI sends). */
export function programHeaders(): Record<string, string> {
  return { authorization: `Bearer ${e2eToken()}` };
}

/** The served store owner's browser state that global-setup.ts saved: for contexts made by hand. */
export function ownerState(): string {
  const path = process.env.E2E_OWNER_STATE;
  if (path === undefined || path === '') {
    throw new Error('E2E_OWNER_STATE is not set: run the specs through e2e/playwright.config.ts');
  }
  return path;
}
