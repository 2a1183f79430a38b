export {
  startTestServer,
  TEST_PASSWORD,
  TEST_TOKEN,
  type TestServer,
  type TestServerOptions,
} from './test-server';
export { PROGRAM_PRINCIPAL, ANONYMOUS_PRINCIPAL } from '../trpc';
