export * from './byte-tokenizer';
export * from './tokenizer';
export * from './hf-tokenizer';
export * from './model-tokenizer';
export * from './model-config';
export * from './decoder';
export { createRng } from './sampling';
export * from './prompt';
export * from './onnx-world-model';
