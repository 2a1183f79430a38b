import { afterAll, beforeAll } from 'vitest';
import { postgresHarness } from './test-support/harnesses';
import { postgresForTests, type PostgresForTests } from './test-support/postgres-server';
import { describePersistentStoreSuite, describeStoreSuite } from './test-support/store-suite';

// TEST_DATABASE_URL, else (outside CI only) a throwaway cluster; under CI without it, every test
// here fails with the reason instead of being skipped.
let server: PostgresForTests | undefined;
beforeAll(async () => {
  server = await postgresForTests();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const harness = postgresHarness(() => {
  if (!server) throw new Error('no PostgreSQL server for the suite (see the beforeAll error)');
  return server.url;
});
describeStoreSuite(harness);
describePersistentStoreSuite(harness);
