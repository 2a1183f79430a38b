const WORD = /[\p{L}\p{N}_]+/gu;

/** Lower-case word tokens (letters, digits, underscore), at most `limit` of them. */
export function tokenize(text: string, limit = Number.POSITIVE_INFINITY): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(WORD)) {
    if (tokens.length >= limit) break;
    tokens.push(match[0].toLowerCase());
  }
  return tokens;
}
