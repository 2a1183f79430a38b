// Test support only: a minimal adapter that records what the reader handed it, and helpers to feed
// bytes in chosen chunk sizes. Product code never imports this folder.
import type { SourceFormat, Trajectory } from '@terrarium/schema';
import {
  RecordError,
  type FormatAdapter,
  type RecordContext,
  type RecordLayout,
} from '../../adapter';
import type { ImportEvent } from '../../read';

export interface ProbeOptions {
  format?: SourceFormat;
  /** Claim the file when its head passes this test (default: always). */
  sniff?: (head: string) => boolean;
  /** Records that are objects with `"bad": "<field>"` throw RecordError(field, 'marked bad'). */
  failOnBadField?: boolean;
}

/** Each record becomes one trajectory whose `task` is the record re-serialized. */
export function probeAdapter(layout: RecordLayout, options: ProbeOptions = {}): FormatAdapter {
  const sniff = options.sniff ?? (() => true);
  return {
    format: options.format ?? 'openai-messages',
    layout,
    sniff: ({ head }) => sniff(head),
    convert(record: unknown, context: RecordContext): Trajectory[] {
      if (typeof record === 'object' && record !== null && 'bad' in record) {
        const field = record.bad;
        if (typeof field === 'string') throw new RecordError(field, 'marked bad');
        throw new TypeError('bad is not a string');
      }
      return [probeTrajectory(JSON.stringify(record), context)];
    },
  };
}

function probeTrajectory(task: string, context: RecordContext): Trajectory {
  return {
    externalId: `${context.file}#${context.ordinal}`,
    sourceFormat: 'openai-messages',
    sourceBenchmark: null,
    domain: 'tool',
    task,
    systemPrompt: null,
    tools: [],
    toolsInferred: false,
    agentModel: null,
    outcome: { reward: null, success: null },
    steps: [],
    metadata: {
      line: context.line,
      byteOffset: context.byteOffset,
      ordinal: context.ordinal,
      key: context.key,
      header: Object.keys(context.header),
    },
    source: { file: context.file, line: context.line, record: null },
  };
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** `bytes` as chunks of the given sizes, cycling through them. */
export async function* chunked(
  bytes: Uint8Array,
  sizes: readonly number[],
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let turn = 0;
  while (offset < bytes.length) {
    const size = Math.max(1, sizes[turn % sizes.length] ?? bytes.length);
    turn++;
    // A fresh copy each time, as a file stream would give.
    yield bytes.slice(offset, offset + size);
    offset += size;
  }
}

export async function collect(events: AsyncIterable<ImportEvent>): Promise<ImportEvent[]> {
  const all: ImportEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Events in a form that compares well: trajectories reduced to their record and place. */
export function summarize(events: readonly ImportEvent[]): unknown[] {
  return events.map((event) => {
    if (event.type !== 'trajectory') return event;
    const { task, metadata } = event.trajectory;
    return { type: 'trajectory', task, metadata };
  });
}

export function tasksOf(events: readonly ImportEvent[]): (string | null)[] {
  return events.flatMap((event) => (event.type === 'trajectory' ? [event.trajectory.task] : []));
}

export function quarantinesOf(events: readonly ImportEvent[]) {
  return events.flatMap((event) => (event.type === 'quarantine' ? [event] : []));
}
