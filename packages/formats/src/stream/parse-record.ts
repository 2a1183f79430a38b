import { countLineFeeds, invalidUtf8At, utf8Length } from './utf8';

export type ParsedRecord = { ok: true; value: unknown } | { ok: false; reason: string };

interface RecordPlace {
  line: number;
  byteOffset: number;
  atEndOfFile: boolean;
}

// ignoreBOM keeps a BOM inside a record, so positions in the text map back to bytes exactly.
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes and parses one record; failures name the line and byte offset of the fault. */
export function parseRecord(bytes: Uint8Array, place: RecordPlace): ParsedRecord {
  let text: string;
  try {
    text = strictDecoder.decode(bytes);
  } catch {
    const at = Math.max(invalidUtf8At(bytes), 0);
    const line = place.line + countLineFeeds(bytes, at);
    return {
      ok: false,
      reason: `invalid UTF-8 at line ${line}, byte offset ${place.byteOffset + at}`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: describeJsonError(error, text, place) };
  }
}

function describeJsonError(error: unknown, text: string, place: RecordPlace): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  const at = position === undefined ? null : Number(position);
  const endsEarly = at === null ? /end of JSON input/.test(message) : at >= text.length;
  if (place.atEndOfFile && endsEarly) {
    return `truncated: the file ends inside this record (${message})`;
  }
  if (at === null) return `invalid JSON: ${message}`;
  const line = place.line + countNewlines(text, at);
  const byteOffset = place.byteOffset + utf8Length(text, at);
  return `invalid JSON at line ${line}, byte offset ${byteOffset}: ${message}`;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  let index = text.indexOf('\n');
  while (index >= 0 && index < end) {
    count++;
    index = text.indexOf('\n', index + 1);
  }
  return count;
}
