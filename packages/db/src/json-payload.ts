// JSON text escapes that PostgreSQL refuses in text and jsonb: NUL (`\u0000`) and lone UTF-16
// surrogates (JSON.stringify writes those as `\udXXX`; paired ones it writes as raw characters).
// The lookbehind skips an escaped backslash followed by a literal "u0000".
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(0000|d[89a-f][0-9a-f]{2})/gi;

/**
 * JSON text for `json_to_recordset`. PostgreSQL cannot store NUL characters or lone surrogates in
 * text, so they become U+2400 (␀) and U+FFFD; everything else is kept as is.
 */
export function toJsonPayload(value: unknown): string {
  const json = JSON.stringify(value);
  // Nearly every payload has no `\u` escape at all; the pattern's look-behind is slow on megabytes.
  if (!json.includes('\\u')) return json;
  return json.replace(UNSTORABLE_ESCAPE, (_match, backslashes: string, code: string) =>
    code === '0000' ? `${backslashes}\\u2400` : `${backslashes}\\ufffd`,
  );
}
