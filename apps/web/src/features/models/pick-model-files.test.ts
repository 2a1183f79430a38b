import { describe, expect, it } from 'vitest';
import { byteTokenizerProblem, pickModelFiles, type PickedFile } from './pick-model-files';

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

describe('byteTokenizerProblem', () => {
  it('accepts a config that declares the byte tokenizer, and explains any other', () => {
    expect(byteTokenizerProblem({ terrarium: { tokenizer: 'bytes' } })).toBe(null);
    expect(byteTokenizerProblem({ model_type: 'llama' })).toMatch(/only speaks the byte-level/);
    expect(byteTokenizerProblem(null)).toMatch(/does not declare/);
  });
});
