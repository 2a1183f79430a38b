/** The bytes the JSON scanners look at. */
export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

export function isJsonWhitespace(byte: number | undefined): boolean {
  return byte === SPACE || byte === LF || byte === CR || byte === TAB;
}

/** Length of `bytes[0, end)` once trailing JSON whitespace is dropped. */
export function trimmedEnd(bytes: Uint8Array, end: number): number {
  let trimmed = end;
  while (trimmed > 0 && isJsonWhitespace(bytes[trimmed - 1])) trimmed--;
  return trimmed;
}

/** Shown for a byte in messages: the character when printable ASCII, else its hex code. */
export function describeByte(byte: number | undefined): string {
  if (byte === undefined) return 'the end of the file';
  if (byte > 0x20 && byte < 0x7f) return `'${String.fromCharCode(byte)}'`;
  return `byte 0x${byte.toString(16).padStart(2, '0')}`;
}
