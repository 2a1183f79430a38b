/**
 * The source text of a top-level member's value in one JSON object line, or null when absent.
 * `JSON.parse` rounds integers above 2^53 (AgentWorldBench ids are such numbers), so the digits
 * are read from the text itself. The line must already be valid JSON (parse it first).
 */
export function topLevelValueText(line: string, key: string): string | null {
  let depth = 0;
  let i = 0;
  let expectKey = false;
  while (i < line.length) {
    const char = line[i];
    if (char === '"') {
      const end = stringEnd(line, i);
      if (depth === 1 && expectKey) {
        const name: unknown = JSON.parse(line.slice(i, end));
        let at = end;
        while (at < line.length && line[at] !== ':') at++;
        at++;
        while (at < line.length && /\s/.test(line[at] ?? '')) at++;
        if (name === key) return line.slice(at, valueEnd(line, at));
        expectKey = false;
        i = at;
        continue;
      }
      i = end;
      continue;
    }
    if (char === '{' || char === '[') {
      depth++;
      expectKey = char === '{' && depth === 1;
    } else if (char === '}' || char === ']') {
      depth--;
    } else if (char === ',' && depth === 1) {
      expectKey = true;
    }
    i++;
  }
  return null;
}

/** Index just past the closing quote of the string starting at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** Index just past the value starting at `start` (a string, a container or a scalar). */
function valueEnd(text: string, start: number): number {
  if (text[start] === '"') return stringEnd(text, start);
  if (text[start] === '{' || text[start] === '[') {
    let depth = 0;
    let i = start;
    while (i < text.length) {
      const char = text[i];
      if (char === '"') {
        i = stringEnd(text, i);
        continue;
      }
      if (char === '{' || char === '[') depth++;
      else if (char === '}' || char === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  let i = start;
  while (i < text.length && !/[\s,}\]]/.test(text[i] ?? '')) i++;
  return i;
}
