export {
  startTestServer,
  TEST_PASSWORD,
  TEST_TOKEN,
  type TestServer,
  type TestServerOptions,
} from './test-server';
export { PROGRAM_PRINCIPAL, ANONYMOUS_PRINCIPAL } from '../trpc';
export { closedPort } from './closed-port';
export { finishedAirlineRun } from './airline-run';
export {
  startRecordingEndpoint,
  type RecordingEndpoint,
} from '../bench/recording-endpoint.testkit';
