import { describe, expect, it } from 'vitest';
import { providerFallbackNotice } from './provider-fallback';

describe('providerFallbackNotice', () => {
  it('says so when WebGPU was asked for (or preferred) and the run fell back to wasm', () => {
    expect(providerFallbackNotice('webgpu', 'wasm')).toBe(
      'WebGPU was requested, but this browser offers no WebGPU adapter: the model ran on wasm (CPU) instead, slower.',
    );
    expect(providerFallbackNotice('auto', 'wasm')).toBe(
      'No WebGPU adapter in this browser: the model ran on wasm (CPU).',
    );
  });

  it('stays silent when the run used what was asked', () => {
    expect([
      providerFallbackNotice('webgpu', 'webgpu'),
      providerFallbackNotice('auto', 'webgpu'),
      providerFallbackNotice('wasm', 'wasm'),
    ]).toEqual([null, null, null]);
  });
});
