import type { JsonValue } from '@terrarium/schema';

type Obj = { [key: string]: JsonValue };

/** A TOML file outside the subset this reader knows: names the line. */
export class TomlSubsetError extends Error {
  override name = 'TomlSubsetError';
}

function scalar(text: string, line: number, floats: Set<string>, key: string): JsonValue {
  const value = text.trim();
  if (value.startsWith('"')) {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'string') throw new TomlSubsetError(`line ${line}: bad string`);
    return parsed;
  }
  if (value === 'true' || value === 'false') return value === 'true';
  if (value.startsWith('[')) {
    const inner = value.slice(1, -1).trim();
    if (inner === '') return [];
    return inner.split(',').map((item) => scalar(item, line, floats, key));
  }
  if (/^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) {
    if (/[.eE]/.test(value)) floats.add(key);
    return Number(value);
  }
  throw new TomlSubsetError(`line ${line}: unsupported value ${value.slice(0, 40)}`);
}

function child(parent: Obj, key: string): JsonValue | undefined {
  return parent[key];
}

/**
 * The TOML of the tau2 telecom databases: `[[array.of.tables]]`, `[sub.table]` (of the last array
 * element), `key = "string" | number | true/false | [scalars]` on one line, `#` comments. Anything
 * else is refused (TomlSubsetError) rather than misread. Also returns the keys written as floats.
 */
export function parseTomlSubset(text: string): { value: Obj; floatKeys: Set<string> } {
  const root: Obj = {};
  const floats = new Set<string>();
  let current: Obj = root;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    const number = index + 1;
    if (line === '' || line.startsWith('#')) continue;
    const header = /^(\[\[?)\s*([A-Za-z0-9_.-]+)\s*(\]\]?)$/.exec(line);
    if (header) {
      const array = header[1] === '[[';
      const path = (header[2] ?? '').split('.');
      let at: Obj = root;
      for (const part of path.slice(0, -1)) {
        const next = child(at, part);
        const node = Array.isArray(next) ? next.at(-1) : next;
        if (typeof node !== 'object' || node === null || Array.isArray(node))
          throw new TomlSubsetError(`line ${number}: no table ${part} to nest in`);
        at = node;
      }
      const last = path.at(-1) ?? '';
      if (array) {
        const list = child(at, last) ?? [];
        if (!Array.isArray(list))
          throw new TomlSubsetError(`line ${number}: ${last} is not a list`);
        const table: Obj = {};
        list.push(table);
        at[last] = list;
        current = table;
      } else {
        const table: Obj = {};
        at[last] = table;
        current = table;
      }
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!pair) throw new TomlSubsetError(`line ${number}: not key = value`);
    const key = pair[1] ?? '';
    current[key] = scalar((pair[2] ?? '').replace(/\s+#.*$/, ''), number, floats, key);
  }
  return { value: root, floatKeys: floats };
}
