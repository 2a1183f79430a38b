import { writeFile } from 'node:fs/promises';
import { request, type FullConfig } from '@playwright/test';
import { e2eToken } from './support/token';
import { sessionCookieName } from '../packages/api/src/auth/sessions';

/**
 * Opens the link `serve` prints, as its user would: the served store's browser session for every
 * spec: its cookie, and the session's proof the page keeps in localStorage. A page load alone gets
 * none (any user of the machine can reach loopback).
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]?.use.baseURL;
  const path = process.env.E2E_OWNER_STATE;
  if (baseURL === undefined || path === undefined) {
    throw new Error('run the specs through e2e/playwright.config.ts (baseURL, E2E_OWNER_STATE)');
  }
  const context = await request.newContext({ baseURL });
  const page = await context.get(`/?token=${encodeURIComponent(e2eToken())}`, {
    headers: { accept: 'text/html' },
    maxRedirects: 0,
  });
  if (page.status() !== 303) throw new Error(`the owner's link answered ${page.status()}`);
  // The page keeps the session's proof, sent in the redirect's fragment, in its localStorage.
  const proof = /#session-proof=([\w-]+)$/.exec(page.headers()['location'] ?? '')?.[1];
  if (proof === undefined) throw new Error("the owner's link gave no session proof");
  const state = await context.storageState();
  if (
    !state.cookies.some(
      (cookie) => cookie.name === sessionCookieName(Number(new URL(baseURL).port)),
    )
  ) {
    throw new Error("the owner's link gave no session cookie");
  }
  const origin = new URL(baseURL).origin;
  const owner = {
    cookies: state.cookies,
    origins: [{ origin, localStorage: [{ name: 'terrarium.sessionProof', value: proof }] }],
  };
  await writeFile(path, JSON.stringify(owner));
  await context.dispose();
}
