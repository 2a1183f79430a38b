const KEYS_SHOWN = 6;

/**
 * The keys of a file's first JSON record, read from its head: the first line of JSONL, the first
 * element of an array, or the object itself. What a user needs to see why no format matched
 * (SWE-agent's `all_preds.jsonl` holds patches, InterCode's task files hold queries and gold
 * answers). Null when the head shows no whole JSON object.
 */
export function firstRecordKeys(head: string): string[] | null {
  const trimmed = head.trimStart();
  const firstLine = trimmed.split('\n', 1)[0] ?? '';
  // An array's first element alone: the head usually cuts the array itself short.
  const firstElement = trimmed.startsWith('[') ? leadingObject(trimmed.slice(1).trimStart()) : '';
  for (const text of [firstLine, firstElement, trimmed]) {
    const value = parseOrNull(text);
    const record = Array.isArray(value) ? value[0] : value;
    if (isPlainObject(record)) return Object.keys(record);
  }
  return null;
}

/** The JSON object `text` starts with, braces matched outside strings; "" if it is cut short. */
function leadingObject(text: string): string {
  if (!text.startsWith('{')) return '';
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      depth++;
    } else if ((char === '}' || char === ']') && --depth === 0) {
      return text.slice(0, index + 1);
    }
  }
  return '';
}

/** "; its first record has the keys a, b, c" or "" when the head shows no record. */
export function firstRecordHint(head: string): string {
  const keys = firstRecordKeys(head);
  if (keys === null) return '';
  if (keys.length === 0) return '; its first record is an empty object';
  const shown = keys.slice(0, KEYS_SHOWN).join(', ');
  const more = keys.length > KEYS_SHOWN ? ` and ${keys.length - KEYS_SHOWN} more` : '';
  return `; its first record has the keys ${shown}${more}`;
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
