export * from './load-model-web';
