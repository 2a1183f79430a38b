export * from './world-source';
export * from './mutators';
export * from './policy';
export * from './rollout';
export * from './schedulers';
export * from './curriculum';
export { hashSeed } from './random';
export * from './seed-tasks';
export * from './checkpoint';
