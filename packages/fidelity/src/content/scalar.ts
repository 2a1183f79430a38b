/**
 * Observations that are one short scalar: a word or two (`landed`, `Transfer successful`), a number
 * (`299.0`), `true`, or a JSON string/number/boolean. Classed by tokens, such a value would be unseen
 * content judged by form, so any other word would pass; yet it is the whole answer (a flight's
 * status, a computed total), so it must match.
 */

/** Longest observation read as one scalar. */
export const SCALAR_MAX_CHARS = 40;
/** Most words of a plain-text scalar. */
export const SCALAR_MAX_WORDS = 3;

const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The canonical value of an observation that is one short scalar, or null. JSON strings are
 * unquoted and numbers written in one canonical form, so `"landed"` equals `landed` and `299.0`
 * equals `299`.
 */
export function scalarValue(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.length > SCALAR_MAX_CHARS || trimmed.includes('\n')) return null;
  if (trimmed.startsWith('"') && trimmed.endsWith('"') && trimmed.length >= 2) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (typeof value === 'string') return value.includes('\n') ? null : scalarValue(value);
    } catch {
      // Not a JSON string: read it as text below.
    }
  }
  if (NUMBER.test(trimmed)) return String(Number(trimmed));
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return null;
  if (trimmed.split(/\s+/).length > SCALAR_MAX_WORDS) return null;
  return trimmed;
}
