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
  /** Decoded string value, or the literal/number text (numbers in canonical form). */
  value: string;
}

export interface LexedJson {
  keys: JsonKeyToken[];
  leaves: JsonLeafToken[];
  /** `path:type` of every value, array indices collapsed (the same set as `shapeOf`). */
  typedPaths: Set<string>;
}

interface Frame {
  isArray: boolean;
  /** Elements (arrays) or members (objects) seen so far. */
  index: number;
  key: string;
  path: string;
  collapsed: string;
}

interface Place {
  path: string;
  collapsed: string;
  key: string;
}

const ROOT: Place = { path: '$', collapsed: '$', key: '' };

function join(base: string, segment: string): string {
  return base === '' ? segment : `${base}.${segment}`;
}

/**
 * Positions of keys and scalar leaves in a JSON text that `JSON.parse` already accepted (so the lexer
 * can trust the syntax), with paths in text order. JSON.parse keeps no offsets, which explanations
 * need, and reorders integer-like keys, which would misplace id-keyed members.
 */
export function lexJson(text: string): LexedJson {
  const keys: JsonKeyToken[] = [];
  const leaves: JsonLeafToken[] = [];
  const typedPaths = new Set<string>();
  const stack: Frame[] = [];
  let expectKey = false;
  // The member being read in the innermost object: its key and its path segments.
  let memberKey = '';
  let memberSegment = '';
  let memberCollapsed = '';
  const placeIn = (frame: Frame | undefined): Place => {
    if (frame === undefined) return ROOT;
    if (frame.isArray)
      return {
        path: `${frame.path}[${frame.index}]`,
        collapsed: `${frame.collapsed}[]`,
        key: frame.key,
      };
    return {
      path: join(frame.path, memberSegment),
      collapsed: join(frame.collapsed, memberCollapsed),
      key: memberKey,
    };
  };
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    // whitespace and ':'
    if (code <= 32 || code === 58) {
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (code === 44) {
      // ','
      if (top !== undefined) {
        top.index++;
        if (!top.isArray) expectKey = true;
      }
      i++;
      continue;
    }
    if (code === 125 || code === 93) {
      // '}' ']'
      stack.pop();
      expectKey = false;
      i++;
      continue;
    }
    if (code === 123 || code === 91) {
      // '{' '['
      const isArray = code === 91;
      const place = placeIn(top);
      typedPaths.add(`${place.collapsed}:${isArray ? 'array' : 'object'}`);
      const root = top === undefined;
      stack.push({
        isArray,
        index: 0,
        key: place.key,
        path: root ? '' : place.path,
        collapsed: root ? '' : place.collapsed,
      });
      expectKey = !isArray;
      i++;
      continue;
    }
    if (code === 34) {
      // '"'
      const end = stringEnd(text, i);
      const raw = text.slice(i + 1, end - 1);
      const value = raw.includes('\\') ? decodeJsonString(text.slice(i, end)) : raw;
      if (expectKey && top !== undefined && !top.isArray) {
        const dynamic = isDynamicKey(value);
        memberKey = value;
        memberSegment = dynamic ? `<${top.index}>` : keySegment(value);
        memberCollapsed = dynamic ? '{}' : keySegment(value);
        const place = placeIn(top);
        keys.push({
          start: i,
          end,
          key: value,
          typedPath: `${place.collapsed}:${valueTypeAfter(text, end)}`,
        });
        if (dynamic)
          leaves.push({
            start: i + 1,
            end: end - 1,
            path: `${place.path}#key`,
            key: 'id',
            type: 'string',
            value,
          });
        expectKey = false;
      } else {
        const place = placeIn(top);
        typedPaths.add(`${place.collapsed}:string`);
        leaves.push({
          start: i + 1,
          end: end - 1,
          path: place.path,
          key: place.key,
          type: 'string',
          value,
        });
      }
      i = end;
      continue;
    }
    // A number or a literal.
    let end = i + 1;
    while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
    const raw = text.slice(i, end);
    const place = placeIn(top);
    const type = raw === 'true' || raw === 'false' ? 'boolean' : raw === 'null' ? 'null' : 'number';
    typedPaths.add(`${place.collapsed}:${type}`);
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
  return { keys, leaves, typedPaths };
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
  while (i < text.length && (text.charCodeAt(i) <= 32 || text.charCodeAt(i) === 58)) i++;
  const char = text[i];
  if (char === '{') return 'object';
  if (char === '[') return 'array';
  if (char === '"') return 'string';
  if (char === 't' || char === 'f') return 'boolean';
  if (char === 'n') return 'null';
  return 'number';
}
