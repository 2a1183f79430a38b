import { initial } from './001-initial';
import { benches } from './002-benches';
import type { Migration } from './migration';

export type { Migration } from './migration';

/** Every migration this build knows, in order. Append; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [initial, benches];
