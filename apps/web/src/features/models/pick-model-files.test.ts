import { describe, expect, it } from 'vitest';
import { pickModelFiles, tokenizerProblem, type PickedFile } from './pick-model-files';

const inFolder = (...paths: string[]): PickedFile[] =>
  paths.map((path) => ({ name: path.split('/').at(-1) ?? path, webkitRelativePath: path }));

describe('pickModelFiles', () => {
  it('takes config.json, onnx/model.onnx and tokenizer.json from a picked folder', () => {
    const picked = pickModelFiles(
      inFolder(
        'wm/config.json',
        'wm/tokenizer.json',
        'wm/tokenizer_config.json',
        'wm/onnx/model_quantized.onnx',
        'wm/onnx/model.onnx',
        'wm/training-log.json',
      ),
    );
    expect(picked).toEqual({
      ok: true,
      files: {
        config: { name: 'config.json', webkitRelativePath: 'wm/config.json' },
        model: { name: 'model.onnx', webkitRelativePath: 'wm/onnx/model.onnx' },
        tokenizer: { name: 'tokenizer.json', webkitRelativePath: 'wm/tokenizer.json' },
        tokenizerConfig: {
          name: 'tokenizer_config.json',
          webkitRelativePath: 'wm/tokenizer_config.json',
        },
      },
    });
  });

  it('prefers the top-level config.json over a nested copy', () => {
    const picked = pickModelFiles(
      inFolder('wm/old/config.json', 'wm/config.json', 'wm/onnx/model.onnx'),
    );
    expect(picked.ok && picked.files.config.webkitRelativePath).toBe('wm/config.json');
  });

  it('accepts loose files picked together, and a single .onnx of another name', () => {
    const files = [
      new File(['{}'], 'config.json'),
      new File([new Uint8Array(4)], 'model_int8.onnx'),
    ];
    const picked = pickModelFiles(files);
    expect(picked.ok && picked.files.model.name).toBe('model_int8.onnx');
    expect(picked.ok && picked.files.tokenizer).toBe(null);
  });

  it('names what is missing', () => {
    expect(pickModelFiles(inFolder('wm/onnx/model.onnx'))).toEqual({
      ok: false,
      reason: 'no config.json among the picked files',
    });
    expect(pickModelFiles(inFolder('wm/config.json', 'wm/tokenizer.json'))).toEqual({
      ok: false,
      reason: 'no .onnx file among the picked files (expected onnx/model.onnx)',
    });
    expect(pickModelFiles(inFolder('wm/config.json', 'wm/onnx/a.onnx', 'wm/onnx/b.onnx'))).toEqual({
      ok: false,
      reason: '2 .onnx files and none is model.onnx: pick the one to run with config.json',
    });
  });
});

describe('tokenizerProblem', () => {
  it('accepts a byte-level Terrarium model with or without tokenizer.json', () => {
    expect(tokenizerProblem({ terrarium: { tokenizer: 'bytes' } }, false)).toBe(null);
    expect(tokenizerProblem({ terrarium: { tokenizer: 'bytes' } }, true)).toBe(null);
  });

  it('accepts any other model with its tokenizer.json, and names the file when it is missing', () => {
    expect(tokenizerProblem({ model_type: 'llama' }, true)).toBe(null);
    const missing =
      'no tokenizer.json among the picked files: a model whose config.json does not declare "terrarium": {"tokenizer": "bytes"} decodes with its own tokenizer.json';
    expect(tokenizerProblem({ model_type: 'llama' }, false)).toBe(missing);
    expect(tokenizerProblem({ terrarium: { tokenizer: 'sentencepiece' } }, false)).toBe(missing);
    expect(tokenizerProblem(null, false)).toBe(missing);
  });
});
