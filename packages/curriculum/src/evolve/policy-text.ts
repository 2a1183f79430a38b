/**
 * How the policy prompt writes a field: cut to a byte budget (a model's context is counted in
 * bytes, one token per byte) and kept on one line, and how a model's answer is read back.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Continuation bytes are 0b10xxxxxx: back up to the start of the character that would be cut.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** Like truncateUtf8, but a cut text ends with `…` (3 bytes, counted in the limit). */
export function cutMarked(text: string, maxBytes: number): string {
  if (encoder.encode(text).length <= maxBytes) return text;
  return `${truncateUtf8(text, maxBytes - 3)}…`;
}

/**
 * Newlines inside a field would read as the next line of the prompt, so they are written as `\n`
 * (and a backslash as `\\`).
 */
export function oneLine(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');
}

/** The text `oneLine` wrote: `\n` is a newline again and `\\` a backslash (what a model writes back). */
export function fromOneLine(line: string): string {
  return line.replace(/\\(\\|n)/g, (_match, escaped: string) => (escaped === 'n' ? '\n' : '\\'));
}
