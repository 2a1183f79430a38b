import { declaresByteTokenizer } from '@terrarium/inference';

/** What a picked file offers: a name, and its path inside the folder when a folder was picked. */
export interface PickedFile {
  readonly name: string;
  readonly webkitRelativePath?: string;
}

export interface ModelFiles<T extends PickedFile> {
  config: T;
  model: T;
  /** `tokenizer.json`: needed unless config.json declares the byte tokenizer (see tokenizerProblem). */
  tokenizer: T | null;
  /** `tokenizer_config.json` (special tokens, BOS), read with tokenizer.json when present. */
  tokenizerConfig?: T | null;
}

export type ModelFilesPick<T extends PickedFile> =
  { ok: true; files: ModelFiles<T> } | { ok: false; reason: string };

function pathOf(file: PickedFile): string {
  return file.webkitRelativePath !== undefined && file.webkitRelativePath !== ''
    ? file.webkitRelativePath
    : file.name;
}

/** Folder depth of a picked path (`model/config.json` is 1): the top-level copy of a file wins. */
function depthOf(file: PickedFile): number {
  return pathOf(file).split('/').length - 1;
}

function shallowest<T extends PickedFile>(files: readonly T[]): T | null {
  return (
    files.toSorted((a, b) => depthOf(a) - depthOf(b) || pathOf(a).localeCompare(pathOf(b)))[0] ??
    null
  );
}

/**
 * The files of a transformers.js / Optimum model folder among what the user picked (a whole
 * folder, or config.json and the .onnx file chosen together). The model is `onnx/model.onnx`
 * when present, else `model.onnx` anywhere, else the only `.onnx` file; quantized variants are
 * taken only when nothing else is there, as transformers.js does with `dtype: fp32`.
 */
export function pickModelFiles<T extends PickedFile>(picked: ArrayLike<T>): ModelFilesPick<T> {
  const files = Array.from(picked);
  const config = shallowest(files.filter((file) => file.name === 'config.json'));
  if (config === null) return { ok: false, reason: 'no config.json among the picked files' };
  const onnx = files.filter((file) => file.name.endsWith('.onnx'));
  const model =
    shallowest(onnx.filter((file) => pathOf(file).endsWith('onnx/model.onnx'))) ??
    shallowest(onnx.filter((file) => file.name === 'model.onnx')) ??
    (onnx.length === 1 ? (onnx[0] ?? null) : null);
  if (model === null) {
    return {
      ok: false,
      reason:
        onnx.length === 0
          ? 'no .onnx file among the picked files (expected onnx/model.onnx)'
          : `${onnx.length} .onnx files and none is model.onnx: pick the one to run with config.json`,
    };
  }
  const tokenizer = shallowest(files.filter((file) => file.name === 'tokenizer.json'));
  const tokenizerConfig = shallowest(files.filter((file) => file.name === 'tokenizer_config.json'));
  return { ok: true, files: { config, model, tokenizer, tokenizerConfig } };
}

/**
 * Why a model cannot be decoded, or null: a Terrarium model declares its byte tokenizer in
 * config.json; any other model decodes with its own tokenizer.json, which must then be there.
 */
export function tokenizerProblem(config: unknown, hasTokenizerJson: boolean): string | null {
  if (declaresByteTokenizer(config) || hasTokenizerJson) return null;
  return 'no tokenizer.json among the picked files: a model whose config.json does not declare "terrarium": {"tokenizer": "bytes"} decodes with its own tokenizer.json';
}
