import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    // A PGlite takes 2-4 s to start and longer to initdb a folder on a busy 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
