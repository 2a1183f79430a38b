import type { JsonValue, Metadata } from '@terrarium/schema';
import { RecordError, type RecordNote } from '../adapter';

/** Records arrive as `unknown`; these guards narrow them and name the field path when they do not fit. */

export type JsonObject = { [key: string]: JsonValue };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

/**
 * True when `value` is plain JSON data. Iterative so a deeply nested record cannot overflow the stack.
 * Everything `JSON.parse` returns passes; the check exists so the types need no cast.
 */
export function isJsonValue(value: unknown): value is JsonValue {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return false;
      continue;
    }
    if (isArray(current)) {
      for (const item of current) pending.push(item);
      continue;
    }
    if (isRecord(current)) {
      for (const key in current) pending.push(current[key]);
      continue;
    }
    return false;
  }
  return true;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return isRecord(value) && isJsonValue(value);
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (isArray(value)) return 'array';
  return typeof value;
}

function mismatch(path: string, expected: string, value: unknown): RecordError {
  // An absent field is said as such ("got undefined" is JavaScript's word for it, not the file's).
  return new RecordError(
    path,
    value === undefined
      ? `missing (expected ${expected})`
      : `expected ${expected}, got ${describeType(value)}`,
  );
}

export function expectObject(value: unknown, path: string): Record<string, unknown> {
  if (!isRecord(value)) throw mismatch(path, 'an object', value);
  return value;
}

export function expectArray(value: unknown, path: string): unknown[] {
  if (!isArray(value)) throw mismatch(path, 'an array', value);
  return value;
}

/** An array, or an empty one when the field is absent or null. */
export function optionalArray(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  return expectArray(value, path);
}

export function expectString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw mismatch(path, 'a string', value);
  return value;
}

export function optionalString(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  return expectString(value, path);
}

export function expectNumber(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw mismatch(path, 'a number', value);
  return value;
}

export function optionalNumber(value: unknown, path: string): number | null {
  if (value === undefined || value === null) return null;
  return expectNumber(value, path);
}

export function optionalBoolean(value: unknown, path: string): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw mismatch(path, 'a boolean', value);
  return value;
}

/** A string or a number (ids are written both ways), as a string. */
export function expectId(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw mismatch(path, 'a string or number id', value);
}

export function optionalId(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  return expectId(value, path);
}

export function toJsonValue(value: unknown, path: string): JsonValue {
  if (!isJsonValue(value)) throw new RecordError(path, 'is not plain JSON data');
  return value;
}

/** The record kept whole in `Trajectory.source.record`. */
export function sourceRecordOf(record: unknown): JsonValue {
  return toJsonValue(record, '');
}

/** Keeps the JSON-representable entries of an object as metadata; absent (undefined) ones are skipped. */
export function metadataOf(entries: Record<string, unknown>): Metadata {
  const metadata: Metadata = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined && isJsonValue(value)) metadata[key] = value;
  }
  return metadata;
}

/**
 * Text of a chat `content` field: a string, null, or a list of parts (`{type: 'text', text}` and
 * others, which are kept as JSON so nothing is lost).
 */
export function contentText(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (isArray(value)) {
    const pieces: string[] = [];
    value.forEach((part, i) => {
      if (typeof part === 'string') pieces.push(part);
      else if (isRecord(part) && typeof part.text === 'string') pieces.push(part.text);
      else pieces.push(JSON.stringify(toJsonValue(part, `${path}[${i}]`)));
    });
    return pieces.join('\n');
  }
  if (isRecord(value)) return JSON.stringify(toJsonValue(value, path));
  throw mismatch(path, 'a string, a list of parts or null', value);
}

/** What an import says of tool-call arguments kept as text because they are not JSON. */
const ARGUMENTS_NOT_JSON = 'not valid JSON (kept as text)';

/**
 * Parses a JSON-encoded argument string, the one place every format that writes tool-call
 * arguments as a string reads them. Text that is not JSON is kept verbatim (see ToolCallAction),
 * never lost, and noted in `notes`: a model's cut-off or malformed call is worth seeing, but the
 * import should say it found one rather than store it without a word.
 */
export function parseArguments(value: unknown, path: string, notes: RecordNote[]): JsonValue {
  if (typeof value !== 'string') return toJsonValue(value ?? {}, path);
  if (value.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    notes.push({ field: path, problem: ARGUMENTS_NOT_JSON });
    return value;
  }
  if (isJsonValue(parsed)) return parsed;
  // JSON.parse reads 1e999 as Infinity, which stored data cannot hold: the text is kept instead.
  notes.push({ field: path, problem: 'holds a number out of range (kept as text)' });
  return value;
}

/** The base name of a path given with either separator. */
export function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] ?? file;
}
