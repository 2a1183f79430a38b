import { afterAll, beforeAll } from 'vitest';
import { describeBenchPagesSuite } from './test-support/bench-pages-suite';
import { describeBenchStoreSuite } from './test-support/bench-suite';
import { postgresHarness } from './test-support/harnesses';
import { postgresForTests, type PostgresForTests } from './test-support/postgres-server';

// TEST_DATABASE_URL, else (outside CI only) a throwaway cluster; see store.postgres.test.ts.
let server: PostgresForTests | undefined;
beforeAll(async () => {
  server = await postgresForTests();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describeBenchStoreSuite(
  postgresHarness(() => {
    if (!server) throw new Error('no PostgreSQL server for the suite (see the beforeAll error)');
    return server.url;
  }),
);

describeBenchPagesSuite(
  postgresHarness(() => {
    if (!server) throw new Error('no PostgreSQL server for the suite (see the beforeAll error)');
    return server.url;
  }),
);
