const BROWSER_SPEC_PREFIX = 'onnx:browser/';

/**
 * The spec naming a model run in this browser, e.g. `onnx:browser/terrarium-wm-tiny`. It matches
 * the SimSpec pattern so it can sit in a Compare URL beside server specs, but only this page can
 * run it: it must never be sent to the server (`isBrowserSimSpec` tells them apart).
 */
export function browserSimSpec(modelName: string): string {
  return `${BROWSER_SPEC_PREFIX}${modelName}`;
}

export function isBrowserSimSpec(spec: string): boolean {
  return spec.startsWith(BROWSER_SPEC_PREFIX);
}

/** The bundled model, run in this browser: offered beside the server's simulators in Compare. */
export const BUNDLED_BROWSER_SIM = {
  spec: browserSimSpec('terrarium-wm-tiny'),
  label: 'Bundled model in this browser',
  description:
    'models/terrarium-wm-tiny (int8) decoded in this browser’s Web Worker with onnxruntime-web (WebGPU when available, else wasm); the server only finds the retrieved transitions its prompt shows.',
};
