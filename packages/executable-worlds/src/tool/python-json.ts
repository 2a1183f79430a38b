import type { JsonValue } from '@terrarium/schema';

/** A string as Python's `json.dumps` writes it (ensure_ascii: every non-ASCII code unit escaped). */
function pythonString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * JSON text as Python's `json.dumps(value)` prints it (`", "` and `": "` separators), which is how
 * tau-bench tools serialise their results. Integral numbers print without `.0`: the airline tables
 * hold no floats, and JSON.parse cannot tell `1.0` from `1` anyway.
 */
export function pythonJsonDumps(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return pythonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NaN';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  const fields = Object.entries(value).map(
    ([key, field]) => `${pythonString(key)}: ${pythonJsonDumps(field)}`,
  );
  return `{${fields.join(', ')}}`;
}
