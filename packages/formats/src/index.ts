export * from './adapter';
export { topLevelValueText } from './raw-value';
export * from './read';
export { readTrajectories } from './read-trajectories';
export { detectFormat, topLevelShape, HEAD_BYTES, type TopLevelShape } from './detect';
export { DEFAULT_MAX_DEPTH, DEFAULT_MAX_RECORD_BYTES } from './stream/split-item';
export * from './adapters';
export { TransitionTally, type TallyCounts } from './transition-tally';
