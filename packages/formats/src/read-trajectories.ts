import type { FormatAdapter } from './adapter';
import { ADAPTERS } from './adapters';
import type { ImportEvent, ReadOptions, ReadTrajectories } from './read';
import { readEvents } from './stream/read-events';

/**
 * Reads one file's chunks into trajectories: `format` once, then `trajectory` and `quarantine`
 * events, or a single `fatal` when the file cannot be read at all. Never throws for bad input.
 */
export function readTrajectories(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  adapters: readonly FormatAdapter[] = ADAPTERS,
): AsyncGenerator<ImportEvent> {
  return readEvents(chunks, options, adapters);
}

// Checked here so a change to the contract in read.ts fails the build at this line.
readTrajectories satisfies ReadTrajectories;
