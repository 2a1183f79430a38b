import type { ExecutionProviderChoice, WebExecutionProvider } from '@terrarium/inference/web';

/**
 * What to tell the user when a run did not get the provider it asked for: WebGPU requested (or
 * `auto`, which prefers it) but run on wasm because the browser offered no WebGPU adapter. Null when
 * the run used what was asked.
 */
export function providerFallbackNotice(
  choice: ExecutionProviderChoice,
  used: WebExecutionProvider,
): string | null {
  if (used !== 'wasm' || choice === 'wasm') return null;
  return choice === 'webgpu'
    ? 'WebGPU was requested, but this browser offers no WebGPU adapter: the model ran on wasm (CPU) instead, slower.'
    : 'No WebGPU adapter in this browser: the model ran on wasm (CPU).';
}
