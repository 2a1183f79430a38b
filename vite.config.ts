import { defineConfig } from 'vitest/config';

// Root config: vitest runs every package's colocated *.test.ts as its own project.
// `pnpm test:unit` and scripts/test.sh add --no-isolate: a worker then keeps the modules it has
// loaded from one test file to the next instead of importing the whole graph (api, PGlite,
// onnxruntime) again for each; the suite keeps no per-file module state (no vi.mock). The api, jobs
// and server files' import time went from 86 s to 23 s. Folder projects do not inherit the option
// from this file, hence the flag.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    // Vitest's default is one worker fewer than the cores: one, here. Most files wait on PGlite,
    // PostgreSQL, HTTP servers or child processes, so two at a time overlap well on two cores.
    // (PostgreSQL suites each use a schema of their own, and import locks are keyed by schema.)
    maxWorkers: 2,
  },
});
