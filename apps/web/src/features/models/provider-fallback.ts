import type { ExecutionProviderChoice, WebExecutionProvider } from '@terrarium/inference/web';

/**
 * What to tell the user when a run did not get the provider it asked for: WebGPU requested (or
 * `auto`, which prefers it) but run on wasm, with the reason the worker gave (no WebGPU API, no
 * adapter, a session WebGPU could not build). Null when the run used what was asked.
 */
export function providerFallbackNotice(
  choice: ExecutionProviderChoice,
  used: WebExecutionProvider,
  reason: string | null,
): string | null {
  if (used !== 'wasm' || choice === 'wasm') return null;
  const why = reason ?? 'WebGPU could not be used';
  return choice === 'webgpu'
    ? `WebGPU was requested, but ${why}: the model ran on wasm (CPU) instead, slower.`
    : `No WebGPU here (${why}): the model ran on wasm (CPU).`;
}
