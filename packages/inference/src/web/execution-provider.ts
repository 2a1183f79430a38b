import type { WebExecutionProvider } from './load-model-web';

/** What the user asks for: `auto` takes WebGPU when the page has an adapter, wasm otherwise. */
export type ExecutionProviderChoice = 'auto' | WebExecutionProvider;

/**
 * The provider to try first. WebGPU asked for on a page without an adapter cannot run, so it falls
 * back to wasm too; the UI reports what was actually used.
 */
export function chooseExecutionProvider(
  choice: ExecutionProviderChoice,
  hasAdapter: boolean,
): WebExecutionProvider {
  if (choice === 'wasm') return 'wasm';
  return hasAdapter ? 'webgpu' : 'wasm';
}

/**
 * wasm threads: several need SharedArrayBuffer, which a browser gives only to a cross-origin
 * isolated page (COOP same-origin + COEP require-corp, as the Terrarium server sends). At most
 * `maxThreads`, and one core is left to the page.
 */
export function wasmThreadCount(
  crossOriginIsolated: boolean,
  hardwareConcurrency: number,
  maxThreads = 4,
): number {
  if (!crossOriginIsolated) return 1;
  return Math.max(1, Math.min(maxThreads, Math.floor(hardwareConcurrency) - 1));
}
