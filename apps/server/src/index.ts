export {
  DEFAULT_HOST,
  DEFAULT_WEB_DIST,
  startServer,
  type RunningServer,
  type AnsweredRequest,
  type ServerOptions,
} from './start-server';
export { DEFAULT_DEMO_DIR, DEMO_BENCH, loadDemoData, startDemoBench } from './demo-data';
export { serveTerrarium, type ServedTerrarium, type ServeOptions } from './serve';
export { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from './security-headers';
export {
  ensureProgramToken,
  readTokenFile,
  TOKEN_ENV,
  TOKEN_FILE,
  tokenFromEnv,
  TokenError,
} from './program-token';
export { boundHostNames, isLoopbackAddress, isWildcardAddress } from './bind-address';
