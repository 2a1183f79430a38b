/** Helpers over values that came out of `JSON.parse` (typed `unknown`, narrowed by guards). */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'object';
}

/**
 * Parses an observation as a JSON document. Only objects and arrays count: a bare `9` or `"ok"` printed
 * by a shell is text that happens to parse, and scoring it as JSON would be misleading.
 */
export function parseJsonDocument(text: string): { value: unknown } | null {
  const trimmed = text.trimStart();
  const first = trimmed[0];
  if (first !== '{' && first !== '[') return null;
  // A failed JSON.parse throws, and exceptions are slow: rule out the common non-JSON shapes first
  // (Python reprs such as "[('a', 1)]" from SQL tools, "[File: …]" banners).
  const second = trimmed.slice(1).trimStart()[0] ?? '';
  if (first === '{' ? second !== '"' && second !== '}' : !'"{[]-0123456789tfn'.includes(second))
    return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return { value };
  } catch {
    return null;
  }
}

/**
 * Object keys that are data rather than structure: ids, dates and numbers used as keys
 * (`"payment_methods": {"credit_card_4421486": {…}}`). Such keys are placed by their position among
 * their siblings, like array elements (`payment_methods.<0>`, collapsed `payment_methods.{}`), and
 * their text is a value (a pseudo-leaf at `payment_methods.<0>#key`).
 */
export function isDynamicKey(key: string): boolean {
  return /\d{3,}/.test(key) || /^\d+$/.test(key);
}

/** A key as a path segment; the empty key gets a visible name so no path is empty but the root's. */
export function keySegment(key: string): string {
  return key === '' ? '""' : key;
}

export interface JsonLeaf {
  /** Path with array indices, e.g. `flights[1].price`. */
  path: string;
  /** The value as text: strings as they are, numbers in canonical form, `true`, `false`, `null`. */
  text: string;
  number: number | null;
}

export interface JsonShape {
  /** `path:type` for every node, array indices collapsed to `[]` (e.g. `flights[].price:number`). */
  typedPaths: Set<string>;
  leaves: JsonLeaf[];
}

/** Walks a parsed document once. Iterative, so deep nesting cannot overflow the stack. */
export function shapeOf(root: unknown): JsonShape {
  const typedPaths = new Set<string>();
  const leaves: JsonLeaf[] = [];
  const pending: { value: unknown; path: string; collapsed: string }[] = [
    { value: root, path: '', collapsed: '' },
  ];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === undefined) break;
    const { value, path, collapsed } = node;
    typedPaths.add(`${collapsed || '$'}:${jsonTypeOf(value)}`);
    if (Array.isArray(value)) {
      value.forEach((item: unknown, i) =>
        pending.push({ value: item, path: `${path}[${i}]`, collapsed: `${collapsed}[]` }),
      );
    } else if (isRecord(value)) {
      Object.entries(value).forEach(([key, item], ordinal) => {
        const dynamic = isDynamicKey(key);
        const segment = dynamic ? `<${ordinal}>` : keySegment(key);
        const step = path === '' ? segment : `${path}.${segment}`;
        const collapsedSegment = dynamic ? '{}' : keySegment(key);
        if (dynamic) leaves.push({ path: `${step}#key`, text: key, number: null });
        pending.push({
          value: item,
          path: step,
          collapsed: collapsed === '' ? collapsedSegment : `${collapsed}.${collapsedSegment}`,
        });
      });
    } else {
      leaves.push({
        path: path || '$',
        text: typeof value === 'string' ? value : String(value),
        number: typeof value === 'number' ? value : null,
      });
    }
  }
  return { typedPaths, leaves };
}

/** JSON with object keys sorted at every level, so key order does not matter when comparing. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item: unknown) => canonicalJson(item)).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).toSorted();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
