export * from './shared-data';
