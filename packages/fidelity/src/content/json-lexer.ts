import { isDynamicKey, keySegment, type JsonType } from '../text/json-value';

export interface JsonKeyToken {
  start: number;
  end: number;
  key: string;
  /** Collapsed path and the type of the key's value, e.g. `flights[].price:number`. */
  typedPath: string;
}

export interface JsonLeafToken {
  start: number;
  end: number;
  /** Path with indices, e.g. `flights[1].price`. */
  path: string;
  /** The last key on the path ('' inside an array of scalars at the root). */
  key: string;
  type: 'string' | 'number' | 'boolean' | 'null';
  /** Decoded string value, or the literal/number text. */
  value: string;
}

interface Frame {
  isArray: boolean;
  index: number;
  key: string;
  path: string;
  collapsed: string;
}

/**
 * Positions of keys and scalar leaves in a JSON text that `JSON.parse` already accepted (so the lexer
 * can trust the syntax). JSON.parse keeps no offsets, and explanations need them.
 */
export function lexJson(text: string): { keys: JsonKeyToken[]; leaves: JsonLeafToken[] } {
  const keys: JsonKeyToken[] = [];
  const leaves: JsonLeafToken[] = [];
  const stack: Frame[] = [];
  let expectKey = false;
  let pendingKey = '';
  let pendingSegment = '';
  let pendingCollapsed = '';
  let i = 0;
  const childPath = (frame: Frame | undefined): { path: string; collapsed: string; key: string } => {
    if (frame === undefined) return { path: '$', collapsed: '$', key: '' };
    if (frame.isArray)
      return { path: `${frame.path}[${frame.index}]`, collapsed: `${frame.collapsed}[]`, key: frame.key };
    const join = (base: string, segment: string) => (base === '' ? segment : `${base}.${segment}`);
    return {
      path: join(frame.path, pendingSegment),
      collapsed: join(frame.collapsed, pendingCollapsed),
      key: pendingKey,
    };
  };
  while (i < text.length) {
    const char = text[i];
    if (char === ' ' || char === '\n' || char === '\t' || char === '\r' || char === ':') {
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (char === ',') {
      if (top !== undefined) {
        top.index++;
        if (!top.isArray) expectKey = true;
      }
      i++;
      continue;
    }
    if (char === '}' || char === ']') {
      stack.pop();
      expectKey = false;
      i++;
      continue;
    }
    if (char === '{' || char === '[') {
      const place = childPath(top);
      const root = top === undefined;
      stack.push({
        isArray: char === '[',
        index: 0,
        key: place.key,
        path: root ? '' : place.path,
        collapsed: root ? '' : place.collapsed,
      });
      expectKey = char === '{';
      i++;
      continue;
    }
    if (char === '"') {
      const end = stringEnd(text, i);
      const raw = text.slice(i + 1, end - 1);
      const value = raw.includes('\\') ? decodeJsonString(text.slice(i, end)) : raw;
      if (expectKey && top !== undefined && !top.isArray) {
        const dynamic = isDynamicKey(value);
        pendingKey = value;
        pendingSegment = dynamic ? `<${top.index}>` : keySegment(value);
        pendingCollapsed = dynamic ? '{}' : keySegment(value);
        const place = childPath(top);
        keys.push({ start: i, end, key: value, typedPath: `${place.collapsed}:${valueTypeAfter(text, end)}` });
        if (dynamic)
          leaves.push({ start: i + 1, end: end - 1, path: `${place.path}#key`, key: 'id', type: 'string', value });
        expectKey = false;
      } else {
        const place = childPath(top);
        leaves.push({ start: i + 1, end: end - 1, path: place.path, key: place.key, type: 'string', value });
      }
      i = end;
      continue;
    }
    // A number or a literal.
    let end = i + 1;
    while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
    const raw = text.slice(i, end);
    const place = childPath(top);
    const type = raw === 'true' || raw === 'false' ? 'boolean' : raw === 'null' ? 'null' : 'number';
    leaves.push({
      start: i,
      end,
      path: place.path,
      key: place.key,
      type,
      value: type === 'number' ? String(Number(raw)) : raw,
    });
    i = end;
  }
  return { keys, leaves };
}

function stringEnd(text: string, quote: number): number {
  let i = quote + 1;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 92) i += 2;
    else if (char === 34) return i + 1;
    else i++;
  }
  return text.length;
}

function decodeJsonString(quoted: string): string {
  const value: unknown = JSON.parse(quoted);
  return typeof value === 'string' ? value : quoted;
}

function isDelimiter(code: number): boolean {
  // , ] } and whitespace
  return code === 44 || code === 93 || code === 125 || code <= 32;
}

function valueTypeAfter(text: string, from: number): JsonType {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === ':' || text[i] === '\n' || text[i] === '\t' || text[i] === '\r')) i++;
  const char = text[i];
  if (char === '{') return 'object';
  if (char === '[') return 'array';
  if (char === '"') return 'string';
  if (char === 't' || char === 'f') return 'boolean';
  if (char === 'n') return 'null';
  return 'number';
}
