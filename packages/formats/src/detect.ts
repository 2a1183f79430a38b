import type { SourceFormat } from '@terrarium/schema';
import type { FormatAdapter, FormatProbe } from './adapter';
import { ADAPTERS } from './adapters';
import { chooseAdapter } from './stream/choose-adapter';

export { topLevelShape, type TopLevelShape } from './stream/top-level-shape';
export { HEAD_BYTES } from './stream/read-head';

/**
 * The format of a file from its name and first 64 KiB, or null when no adapter claims it.
 * Adapters are asked in priority order; when several claim the file, one whose layout fits the
 * file's top-level shape wins.
 */
export function detectFormat(
  probe: FormatProbe,
  adapters: readonly FormatAdapter[] = ADAPTERS,
): SourceFormat | null {
  return chooseAdapter(probe, adapters)?.format ?? null;
}
