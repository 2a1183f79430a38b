import { describe, expect, it } from 'vitest';
import { providerFallbackNotice } from './provider-fallback';

describe('providerFallbackNotice', () => {
  it('says so, and why, when WebGPU was asked for (or preferred) and the run fell back to wasm', () => {
    expect(
      providerFallbackNotice(
        'webgpu',
        'wasm',
        'the browser offered no WebGPU adapter (no usable GPU)',
      ),
    ).toBe(
      'WebGPU was requested, but the browser offered no WebGPU adapter (no usable GPU): the model ran on wasm (CPU) instead, slower.',
    );
    expect(
      providerFallbackNotice('auto', 'wasm', 'this browser exposes no WebGPU API (navigator.gpu)'),
    ).toBe(
      'No WebGPU here (this browser exposes no WebGPU API (navigator.gpu)): the model ran on wasm (CPU).',
    );
    expect(providerFallbackNotice('webgpu', 'wasm', null)).toBe(
      'WebGPU was requested, but WebGPU could not be used: the model ran on wasm (CPU) instead, slower.',
    );
  });

  it('stays silent when the run used what was asked', () => {
    expect([
      providerFallbackNotice('webgpu', 'webgpu', null),
      providerFallbackNotice('auto', 'webgpu', null),
      providerFallbackNotice('wasm', 'wasm', null),
    ]).toEqual([null, null, null]);
  });
});
