// Node-side entry (esbuild, quickjs wasm); the browser imports only the package root.
export {
  runInQuickJs,
  CustomRuleError,
  QuickJsSandbox,
  type SandboxLimits,
} from './run-in-quickjs';
export { transpileCustomRule } from './transpile';
export { getQuickJS as loadQuickJs } from 'quickjs-emscripten';
