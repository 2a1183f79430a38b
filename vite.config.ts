import { defineConfig } from 'vitest/config';

// Root config: vitest runs every package's colocated *.test.ts as its own project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
  },
});
