import type { JsonValue } from '@terrarium/schema';

/** A string as Python's `json.dumps` writes it (ensure_ascii: every non-ASCII code unit escaped). */
function pythonString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** What JSON.parse forgets and Python prints: which fields are floats, and key order. */
export interface JsonFormat {
  /** Keys whose numbers Python holds as floats (see `floatKeysOf`): integral values print `.0`. */
  floatKeys?: ReadonlySet<string>;
  /**
   * Source key order of objects whose JS order differs: JS lists integer-like keys (`"1008292230"`)
   * first, ascending, where Python keeps insertion order (see `parseOrderedJson`).
   */
  keyOrder?: WeakMap<object, readonly string[]>;
}

function pythonNumber(value: number, float: boolean): string {
  if (!Number.isFinite(value)) return 'NaN';
  return float && Number.isInteger(value) ? `${value}.0` : String(value);
}

/**
 * JSON text as Python's `json.dumps(value)` prints it (`", "` and `": "` separators), which is how
 * tau-bench tools serialise their results, with the floats and key order of `format`.
 */
export function pythonJsonDumps(value: JsonValue, format: JsonFormat = {}, float = false): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return pythonString(value);
  if (typeof value === 'number') return pythonNumber(value, float);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value))
    return `[${value.map((item) => pythonJsonDumps(item, format, float)).join(', ')}]`;
  const keys = format.keyOrder?.get(value) ?? Object.keys(value);
  const fields = keys.map(
    (key) =>
      `${pythonString(key)}: ${pythonJsonDumps(value[key] ?? null, format, format.floatKeys?.has(key) ?? false)}`,
  );
  return `{${fields.join(', ')}}`;
}

/**
 * JSON.parse that also returns the source key order of every object whose JS key order differs
 * (integer-like keys), for `pythonJsonDumps`. Parsing is JSON.parse's; a second, shallow scan of
 * the text reads each object's keys in order (strings skipped, nesting tracked).
 */
export function parseOrderedJson(text: string): {
  value: JsonValue;
  keyOrder: WeakMap<object, readonly string[]>;
} {
  const value: JsonValue = JSON.parse(text);
  const keyOrder = new WeakMap<object, readonly string[]>();
  // Keys per object in source order, objects numbered in the order their `{` appears.
  const orders: string[][] = [];
  const stack: { keys: string[] | null; expectKey: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.keys && top.expectKey) {
        const key: unknown = JSON.parse(text.slice(i, j + 1));
        if (typeof key === 'string') top.keys.push(key);
        top.expectKey = false;
      }
      i = j;
    } else if (char === '{') {
      const keys: string[] = [];
      orders.push(keys);
      stack.push({ keys, expectKey: true });
    } else if (char === '[') stack.push({ keys: null, expectKey: false });
    else if (char === '}' || char === ']') stack.pop();
    else if (char === ',') {
      const top = stack.at(-1);
      if (top?.keys) top.expectKey = true;
    }
  }
  // Walk the parsed value in source order (pre-order), matching objects to their key lists.
  let next = 0;
  const walk = (node: JsonValue): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const keys = orders[next++] ?? [];
    const jsKeys = Object.keys(node);
    if (keys.some((key, i) => jsKeys[i] !== key)) keyOrder.set(node, keys);
    for (const key of keys) walk(node[key] ?? null);
  };
  walk(value);
  return { value, keyOrder };
}

const FLOAT_FIELD = /"((?:[^"\\]|\\.)*)"\s*:\s*\[?\s*-?\d+(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)/g;

/**
 * Keys whose values are written as floats (`"price": 10.0`, `"amount": 1e3`, also the first item of
 * a list) anywhere in these JSON texts: the source database and recorded observations say which
 * fields the tools hold as floats, which JSON.parse forgets.
 */
export function floatKeysOf(texts: Iterable<string>): Set<string> {
  const keys = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(FLOAT_FIELD)) {
      const key: unknown = JSON.parse(`"${match[1] ?? ''}"`);
      if (typeof key === 'string') keys.add(key);
    }
  }
  return keys;
}
