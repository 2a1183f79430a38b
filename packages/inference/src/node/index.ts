export * from './load-model-folder';
