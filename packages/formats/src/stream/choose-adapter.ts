import type { SourceFormat } from '@terrarium/schema';
import type { FormatAdapter, FormatProbe, RecordLayout } from '../adapter';
import { topLevelShape, type TopLevelShape } from './top-level-shape';

const LAYOUTS_BY_SHAPE: Record<TopLevelShape, ReadonlyArray<RecordLayout['kind']>> = {
  jsonl: ['jsonl'],
  'json-object': ['json-document', 'json-object-values', 'object-stream', 'jsonl'],
  'json-array': ['json-array', 'json-document', 'jsonl'],
  empty: [],
  binary: [],
  text: [],
};

/**
 * The adapter for a file: the first (in the given priority order) whose `sniff` claims it, preferring
 * one whose layout fits the file's top-level shape when several claim it. With `format`, only that
 * format's adapters are considered, and one is used even if none claims the file.
 */
export function chooseAdapter(
  probe: FormatProbe,
  adapters: readonly FormatAdapter[],
  format?: SourceFormat,
): FormatAdapter | null {
  const candidates =
    format === undefined ? adapters : adapters.filter((adapter) => adapter.format === format);
  const claiming = candidates.filter((adapter) => claims(adapter, probe));
  const pool = claiming.length > 0 || format === undefined ? claiming : candidates;
  if (pool.length <= 1) return pool[0] ?? null;
  const fitting = LAYOUTS_BY_SHAPE[topLevelShape(probe.head)];
  return pool.find((adapter) => fitting.includes(adapter.layout.kind)) ?? pool[0] ?? null;
}

/** Sorted, distinct format names, for error messages. */
export function knownFormats(adapters: readonly FormatAdapter[]): string {
  return [...new Set(adapters.map((adapter) => adapter.format))].toSorted().join(', ');
}

function claims(adapter: FormatAdapter, probe: FormatProbe): boolean {
  try {
    return adapter.sniff(probe);
  } catch {
    // A sniffer that trips over odd input simply does not claim the file.
    return false;
  }
}
