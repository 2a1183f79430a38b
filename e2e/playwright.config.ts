import { defineConfig } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.E2E_PORT ?? 4399);
// Every run starts the server on an empty embedded store of its own. Playwright evaluates this file in
// each worker too, so the folder is chosen once and passed down through the environment.
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'terrarium-e2e-'));
// The program token of the served store (and of the specs' own servers): the specs' API calls send
// it as programs do; the browser gets its local-owner cookie from the link `serve` prints, opened
// once in global-setup.ts.
process.env.TERRARIUM_TOKEN ??= randomBytes(24).toString('hex');
// Where global-setup.ts keeps the local owner's browser state (cookies) for every spec.
process.env.E2E_OWNER_STATE ??= `${process.env.E2E_DATA_DIR}.owner-state.json`;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // The journeys share one server and one store; running them one after another keeps them independent
  // of each other's timing on a 2-core machine.
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  globalSetup: './global-setup.ts',
  reporter: [['list'], ['json', { outputFile: process.env.E2E_JSON ?? 'test-results/e2e.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    storageState: process.env.E2E_OWNER_STATE,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: `node --import tsx apps/cli/src/main.ts serve --port ${port} --data-dir ${process.env.E2E_DATA_DIR}`,
    cwd: join(import.meta.dirname, '..'),
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
  },
});
