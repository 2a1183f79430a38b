import type { ImportError, Trajectory } from '@terrarium/schema';
import { RecordError, type FormatAdapter, type RecordContext } from '../adapter';
import type { ImportEvent, ReadOptions } from '../read';
import { chooseAdapter, knownFormats } from './choose-adapter';
import { createSplitter } from './create-splitter';
import { firstRecordHint } from './first-record-keys';
import { parseRecord } from './parse-record';
import { EXCERPT_BYTES } from './record-accumulator';
import { readHead, HEAD_BYTES } from './read-head';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_RECORD_BYTES, type SplitItem } from './split-item';
import { findBinaryEvidence, utf8BomLength } from './top-level-shape';
import { decodeForDisplay, withoutCutTail } from './utf8';

/**
 * The importer engine: detects the format from the first 64 KiB, splits the stream into records
 * by the adapter's layout, and converts each. Bad input never throws: a bad record becomes a
 * `quarantine` event and the file goes on; a file that cannot be read at all gives one `fatal`.
 * Errors thrown by `chunks` itself (I/O, abort) propagate to the caller.
 */
export async function* readEvents(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  adapters: readonly FormatAdapter[],
): AsyncGenerator<ImportEvent> {
  const file = options.fileName;
  const source = chunks[Symbol.asyncIterator]();
  let ended = false;
  try {
    const head = await readHead(source);
    ended = head.ended;
    const binary = findBinaryEvidence(head.bytes);
    if (binary !== null) {
      yield fatal({ file, line: null, byteOffset: binary.byteOffset, reason: binary.reason });
      return;
    }
    const bom = utf8BomLength(head.bytes);
    const body = head.bytes.subarray(bom);
    if (ended && isBlank(body)) {
      yield fatal({ file, line: null, byteOffset: null, reason: 'empty file' });
      return;
    }
    const probe = {
      fileName: file,
      head: decodeForDisplay(withoutCutTail(body.subarray(0, HEAD_BYTES))),
    };
    const adapter = chooseAdapter(probe, adapters, options.format);
    if (adapter === null) {
      const reason =
        options.format === undefined
          ? `unknown format: it matches none of the known formats (${knownFormats(adapters)})${firstRecordHint(probe.head)}`
          : `no reader for format ${options.format} (known formats: ${knownFormats(adapters)})`;
      yield fatal({ file, line: null, byteOffset: null, reason });
      return;
    }
    yield { type: 'format', format: adapter.format };

    const limits = {
      maxRecordBytes: options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES,
      maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    };
    const splitter = createSplitter(adapter.layout, limits, bom);
    // A format the user named is taken on their word: if its first records all fail, the file is
    // most likely another format, which would otherwise be quarantined record by record.
    const forced =
      options.format === undefined
        ? null
        : { detected: chooseAdapter(probe, adapters)?.format ?? null };
    const converter = new RecordConverter(file, adapter, options.resumeAfter ?? -1, forced);
    let events = converter.eventsFor(splitter.push(body));
    for (const event of events) yield event;
    while (!ended && !converter.stopped) {
      const next = await source.next();
      if (next.done === true) {
        ended = true;
        break;
      }
      events = converter.eventsFor(splitter.push(next.value));
      for (const event of events) yield event;
    }
    if (!converter.stopped) {
      for (const event of converter.eventsFor(splitter.end())) yield event;
      for (const event of converter.finish()) yield event;
    }
  } finally {
    // The consumer stopped early (or the file was unreadable): let the source close its file.
    if (!ended) await source.return?.();
  }
}

/**
 * Records of a forced format that may all fail before the file is taken for another format (walk
 * 40: an array of 53,013 lines read as JSONL gave 53,013 quarantined records).
 */
export const FORCED_FORMAT_PROBE_RECORDS = 20;

/** Turns split items into events: parses records, hands them to the adapter, catches what fails. */
class RecordConverter {
  private ordinal = 0;
  /** Top-level members of an `object-stream` file seen so far. */
  private readonly header: Record<string, unknown> = {};
  /** A fatal event was emitted: nothing more is read. */
  stopped = false;
  /**
   * With a forced format, until a record converts: its failures, held back. Null once one has
   * (or without a forced format): failures are quarantined as they come.
   */
  private held: ImportEvent[] | null;

  constructor(
    private readonly file: string,
    private readonly adapter: FormatAdapter,
    /** Items starting at or before this offset were imported already (`ReadOptions.resumeAfter`). */
    private readonly resumeAfter: number,
    /** The format was named by the user; `detected` is what the file reads as without it. */
    private readonly forced: { detected: string | null } | null = null,
  ) {
    // A resumed read (resumeAfter ≥ 0) has read records as the format already: it is one.
    this.held = forced === null || resumeAfter >= 0 ? null : [];
  }

  eventsFor(items: SplitItem[]): ImportEvent[] {
    const events = this.eventsOf(items);
    if (this.held === null) return events;
    if (this.stopped) {
      const held = this.held;
      this.held = null;
      const stop = events.find((event) => event.type === 'fatal');
      const readAny = events.some((event) => event.type === 'trajectory');
      // Nothing read as the forced format before the file stopped reading as it, and detection
      // reads it as another: the format is wrong, not the file (walk 46: an OpenAI-messages file
      // forced as tau2-bench counted "1 bad record" and its whole rest skipped).
      if (stop?.type === 'fatal' && !readAny && this.otherDetected() !== null) {
        const at = stop.error.line === null ? '' : ` at line ${stop.error.line}`;
        return [
          this.notThisFormat(
            `it stopped reading as ${this.adapter.format}${at} (${stop.error.reason})`,
            [],
          ),
        ];
      }
      // Unreadable past this point: what failed before it is quarantined as ever.
      return [...held, ...events];
    }
    const out: ImportEvent[] = [];
    for (const event of events) {
      if (this.held === null) {
        out.push(event);
      } else if (event.type === 'quarantine') {
        this.held.push(event);
        if (this.held.length >= FORCED_FORMAT_PROBE_RECORDS) {
          const what = `its first ${FORCED_FORMAT_PROBE_RECORDS} records all failed as ${this.adapter.format}`;
          return [this.notThisFormat(what, this.held)];
        }
      } else {
        // A record read as the format: the file is one, and its failures are its own.
        if (event.type === 'trajectory') {
          out.push(...this.held);
          this.held = null;
        }
        out.push(event);
      }
    }
    return out;
  }

  /**
   * The failures still held when the file ends with fewer records than the probe: as they are,
   * unless detection reads the file as another format (then every record failing says that).
   */
  finish(): ImportEvent[] {
    const held = this.held ?? [];
    this.held = null;
    if (held.length > 0 && this.otherDetected() !== null) {
      const records = held.length === 1 ? 'its one record' : `all its ${held.length} records`;
      return [this.notThisFormat(`${records} failed as ${this.adapter.format}`, held)];
    }
    return held;
  }

  /** The format the file reads as when left to detection, when that is not the forced one. */
  private otherDetected(): string | null {
    const detected = this.forced?.detected ?? null;
    return detected === this.adapter.format ? null : detected;
  }

  /** The file is not of the forced format: one error saying why, instead of its records'. */
  private notThisFormat(what: string, failures: ImportEvent[]): ImportEvent {
    this.stopped = true;
    this.held = null;
    const [first] = failures;
    const which = failures.length === 1 ? '' : 'the first, ';
    const example =
      first?.type === 'quarantine'
        ? ` (${which}line ${first.error.line ?? '?'}: ${first.error.reason})`
        : '';
    const detected = this.otherDetected();
    const hint = detected === null ? '' : `; left to detection, it reads as ${detected}`;
    return {
      type: 'fatal',
      error: {
        file: this.file,
        line: null,
        byteOffset: null,
        reason: `not ${this.adapter.format}: ${what}${example}${hint}`,
      },
      notFormat: this.adapter.format,
    };
  }

  private eventsOf(items: SplitItem[]): ImportEvent[] {
    const events: ImportEvent[] = [];
    for (const item of items) {
      if (item.byteOffset <= this.resumeAfter && item.kind !== 'header') {
        // Counted, not parsed: ordinals stay those of an uninterrupted read.
        if (item.kind === 'record' || item.kind === 'bad-record') this.ordinal++;
        continue;
      }
      switch (item.kind) {
        case 'record':
          this.convert(item, events);
          break;
        case 'header': {
          const parsed = parseRecord(item.bytes, { ...item, atEndOfFile: false });
          if (parsed.ok) {
            // defineProperty: a member named "__proto__" must stay a plain member.
            Object.defineProperty(this.header, item.name, {
              value: parsed.value,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          } else {
            events.push(
              this.quarantine(item, `header member "${item.name}": ${parsed.reason}`, item.bytes),
            );
          }
          break;
        }
        case 'bad-record':
          this.ordinal++;
          events.push(this.quarantine(item, item.reason, item.excerpt));
          break;
        case 'bad-header':
          events.push(
            this.quarantine(item, `header member "${item.name}": ${item.reason}`, item.excerpt),
          );
          break;
        case 'bad-structure':
          events.push(this.quarantine(item, item.reason, item.excerpt));
          break;
        case 'unreadable':
          events.push(
            fatal({
              file: this.file,
              line: item.line,
              byteOffset: item.byteOffset,
              reason: item.reason,
            }),
          );
          this.stopped = true;
          return events;
      }
    }
    return events;
  }

  private convert(item: Extract<SplitItem, { kind: 'record' }>, events: ImportEvent[]): void {
    const ordinal = this.ordinal++;
    const parsed = parseRecord(item.bytes, item);
    if (!parsed.ok) {
      events.push(this.quarantine(item, parsed.reason, item.bytes));
      return;
    }
    const context: RecordContext = {
      file: this.file,
      line: item.line,
      byteOffset: item.byteOffset,
      ordinal,
      key: item.key,
      header: this.header,
      text: () => new TextDecoder().decode(item.bytes),
      notes: [],
    };
    let trajectories: Trajectory[];
    try {
      trajectories = this.adapter.convert(parsed.value, context);
    } catch (error) {
      // Quarantined whole: what the adapter noted before it failed is not imported, so not said.
      events.push(this.quarantine(item, this.convertFailure(error), item.bytes));
      return;
    }
    // One copy per record, shared by its trajectories: the splitter reuses its buffer.
    let recordBytes: Uint8Array | undefined;
    for (const trajectory of trajectories) {
      if (trajectory.source.record === parsed.value) recordBytes ??= item.bytes.slice();
      events.push({
        type: 'trajectory',
        trajectory,
        byteOffset: item.byteOffset,
        ...(trajectory.source.record === parsed.value ? { sourceBytes: recordBytes } : {}),
      });
    }
    for (const note of context.notes) {
      events.push({
        type: 'warning',
        warning: { file: this.file, line: item.line, reason: `${note.field}: ${note.problem}` },
        byteOffset: item.byteOffset,
      });
    }
  }

  private convertFailure(error: unknown): string {
    if (error instanceof RecordError) return error.message;
    const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return `${this.adapter.format} converter failed: ${described}`;
  }

  private quarantine(
    place: { line: number; byteOffset: number },
    reason: string,
    bytes: Uint8Array,
  ): ImportEvent {
    return {
      type: 'quarantine',
      error: { file: this.file, line: place.line, byteOffset: place.byteOffset, reason },
      excerpt: decodeForDisplay(bytes.subarray(0, EXCERPT_BYTES)),
    };
  }
}

function fatal(error: ImportError): ImportEvent {
  return { type: 'fatal', error };
}

function isBlank(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  }
  return true;
}
