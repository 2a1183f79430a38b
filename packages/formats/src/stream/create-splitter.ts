import type { RecordLayout } from '../adapter';
import { JsonSplitter } from './json-splitter';
import { JsonlSplitter } from './jsonl-splitter';
import type { RecordLimits, RecordSplitter } from './split-item';

/** A splitter for `layout`; `startOffset` is the file offset of the first byte it is fed (after a BOM). */
export function createSplitter(
  layout: RecordLayout,
  limits: RecordLimits,
  startOffset = 0,
): RecordSplitter {
  return layout.kind === 'jsonl'
    ? new JsonlSplitter(limits, startOffset)
    : new JsonSplitter(layout, limits, startOffset);
}
