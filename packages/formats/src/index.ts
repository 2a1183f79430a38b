export * from './adapter';
export * from './read';
