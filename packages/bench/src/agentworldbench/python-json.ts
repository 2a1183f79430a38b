function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string as Python's `json.dumps` writes it by default (`ensure_ascii`): non-ASCII as \uXXXX. */
function pythonString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * JSON as Python's `json.dumps(value)` writes it with default settings: `", "` and `": "`
 * separators, keys in insertion order, non-ASCII escaped. AgentWorldBench files are written by
 * Python, so this is what makes an exported line byte-identical to the imported one.
 */
export function pythonJson(value: unknown): string {
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (isRecord(value)) {
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined) continue;
      members.push(`${pythonString(key)}: ${pythonJson(member)}`);
    }
    return `{${members.join(', ')}}`;
  }
  // Python writes integers as JS does; floats like 1.0 differ, but the AWB fields are integers.
  return JSON.stringify(value) ?? 'null';
}
