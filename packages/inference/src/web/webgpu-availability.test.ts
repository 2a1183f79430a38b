import { afterEach, describe, expect, it } from 'vitest';
import { webGpuAvailability } from './load-model-web';

describe('webGpuAvailability', () => {
  afterEach(() => {
    Reflect.deleteProperty(globalThis, 'isSecureContext');
  });

  it('says a page served over plain HTTP on a LAN address is why there is no WebGPU', async () => {
    // Node, like such a page, has no navigator.gpu; a browser says whether the page is secure.
    Object.defineProperty(globalThis, 'isSecureContext', { value: false, configurable: true });
    expect(await webGpuAvailability()).toEqual({
      available: false,
      reason:
        'this page is not a secure context (plain HTTP on an address other than localhost); browsers offer WebGPU only over HTTPS or on localhost',
    });
    Object.defineProperty(globalThis, 'isSecureContext', { value: true, configurable: true });
    expect(await webGpuAvailability()).toEqual({
      available: false,
      reason: 'this browser exposes no WebGPU API (navigator.gpu)',
    });
  });
});
