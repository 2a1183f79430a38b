/**
 * Finding and reading the JSON object in a model's answer, which may be wrapped in reasoning, code
 * fences or prose, cut off, or written loosely (single quotes, bare keys, trailing commas, Python
 * literals). Linear scanners only; nothing here throws.
 */

/** Drops `<think>…</think>` blocks, and everything before a closing tag whose opening was in the prompt. */
export function stripThinking(text: string): string {
  let out = text.replace(/<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi, '');
  const close = /<\/think(?:ing)?>/gi;
  let last = -1;
  for (let match = close.exec(out); match !== null; match = close.exec(out)) {
    last = match.index + match[0].length;
  }
  if (last >= 0) out = out.slice(last);
  return out;
}

/** Contents of fenced code blocks, last first (the answer usually comes last). */
export function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  const fence = /```[\w-]*[^\S\n]*\n?([\s\S]*?)```/g;
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    blocks.push(match[1] ?? '');
  }
  return blocks.toReversed();
}

/**
 * Every top-level `{…}` of a text, in order, balanced while skipping quoted strings (either quote);
 * an object cut off at the end of the text is closed.
 */
export function outermostObjects(text: string): string[] {
  const objects: string[] = [];
  let depth = 0;
  let start = -1;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote !== null) {
      if (char === '\\') i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (depth > 0 && (char === '"' || char === "'")) {
      // An apostrophe inside a word (`it's`) in bare prose is not a string.
      if (char === "'" && /\w/.test(text[i - 1] ?? '') && /\w/.test(text[i + 1] ?? '')) continue;
      quote = char;
    } else if (char === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (char === '}' && depth > 0) {
      depth--;
      if (depth === 0) objects.push(text.slice(start, i + 1));
    }
  }
  if (depth > 0 && start >= 0) {
    const closing = quote === null ? '' : quote;
    objects.push(`${text.slice(start)}${closing}${'}'.repeat(depth)}`);
  }
  return objects;
}

const PYTHON_LITERALS: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

/**
 * Rewrites loose JSON into strict JSON: single-quoted strings, bare keys, Python literals,
 * trailing commas, and raw newlines or tabs inside strings.
 */
export function repairJson(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    if (char === '"' || char === "'") {
      let content = '';
      let j = i + 1;
      for (; j < text.length; j++) {
        const c = text[j] ?? '';
        if (c === '\\') {
          const next = text[j + 1] ?? '';
          content += char === "'" && next === "'" ? "'" : `\\${next}`;
          j++;
        } else if (c === char) {
          break;
        } else if (c === '"') {
          content += '\\"';
        } else if (c === '\n') {
          content += '\\n';
        } else if (c === '\r') {
          content += '\\r';
        } else if (c === '\t') {
          content += '\\t';
        } else {
          content += c;
        }
      }
      out += `"${content}"`;
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(char)) {
      let j = i;
      while (j < text.length && /[\w-]/.test(text[j] ?? '')) j++;
      const word = text.slice(i, j);
      let k = j;
      while (k < text.length && /\s/.test(text[k] ?? '')) k++;
      if (text[k] === ':') out += JSON.stringify(word);
      else out += PYTHON_LITERALS[word] ?? word;
      i = j;
      continue;
    }
    if (char === ',') {
      let k = i + 1;
      while (k < text.length && /\s/.test(text[k] ?? '')) k++;
      if (text[k] === '}' || text[k] === ']') {
        i++;
        continue;
      }
    }
    out += char;
    i++;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object a text holds, strict first, then repaired; null when neither parses to an object. */
export function parseLooseObject(text: string): Record<string, unknown> | null {
  for (const attempt of [() => text, () => repairJson(text)]) {
    try {
      const parsed: unknown = JSON.parse(attempt());
      if (isObject(parsed)) return parsed;
    } catch {
      // Not this way; try the next.
    }
  }
  return null;
}

/**
 * Candidate objects of an answer, most likely first: objects in fenced blocks (last block first),
 * then objects of the whole text, last first.
 */
export function answerObjects(answer: string): Record<string, unknown>[] {
  const text = stripThinking(answer);
  const sources = [...fencedBlocks(text), text];
  const objects: Record<string, unknown>[] = [];
  for (const source of sources) {
    for (const candidate of outermostObjects(source).toReversed()) {
      const parsed = parseLooseObject(candidate);
      if (parsed !== null) objects.push(parsed);
    }
  }
  return objects;
}

export { isObject };
