import { describe, expect, it } from 'vitest';
import { chooseExecutionProvider, wasmThreadCount } from './execution-provider';

describe('chooseExecutionProvider', () => {
  it('takes WebGPU only when an adapter exists', () => {
    expect(chooseExecutionProvider('auto', true)).toBe('webgpu');
    expect(chooseExecutionProvider('auto', false)).toBe('wasm');
    expect(chooseExecutionProvider('webgpu', true)).toBe('webgpu');
    expect(chooseExecutionProvider('webgpu', false)).toBe('wasm');
  });

  it('keeps wasm when wasm is asked for, adapter or not', () => {
    expect(chooseExecutionProvider('wasm', true)).toBe('wasm');
    expect(chooseExecutionProvider('wasm', false)).toBe('wasm');
  });
});

describe('wasmThreadCount', () => {
  it('runs one thread on a page that is not cross-origin isolated', () => {
    expect(wasmThreadCount(false, 16)).toBe(1);
  });

  it('leaves one core to the page and caps the count', () => {
    expect(wasmThreadCount(true, 2)).toBe(1);
    expect(wasmThreadCount(true, 3)).toBe(2);
    expect(wasmThreadCount(true, 16)).toBe(4);
    expect(wasmThreadCount(true, 16, 8)).toBe(8);
    expect(wasmThreadCount(true, 1)).toBe(1);
  });
});
