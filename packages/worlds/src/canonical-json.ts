import type { JsonValue } from '@terrarium/schema';

/** JSON with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).toSorted();
  const parts: string[] = [];
  for (const key of keys) {
    const item = value[key];
    // A key whose value is undefined is absent from the JSON text as well.
    if (item !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}
