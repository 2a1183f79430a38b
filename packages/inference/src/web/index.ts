export * from './load-model-web';
export * from './execution-provider';
