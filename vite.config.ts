import { defineConfig } from 'vitest/config';

// Root config: vitest runs every package's colocated *.test.ts as its own project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    // Vitest's default is one worker fewer than the cores: one, here. Most files wait on PGlite,
    // PostgreSQL, HTTP servers or child processes, so two at a time overlap well on two cores.
    // (PostgreSQL suites each use a schema of their own, and import locks are keyed by schema.)
    maxWorkers: 2,
  },
});
