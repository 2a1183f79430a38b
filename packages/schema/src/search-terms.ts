/**
 * How searched words are found in text where a search shows them: the list's snippets (db) and the
 * viewer's marks (web) use this one pattern, so what is highlighted in one is marked in the other.
 */

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A phrase's words, as the index splits them (anything but letters and digits separates). */
export function phraseWords(phrase: string): string[] {
  return phrase.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
}

/**
 * One pattern for all terms (each a phrase as its list of words): a phrase's words in order with
 * only separators between them, each word whole (the index matches whole words, so `Austin` must
 * not light up inside `Austinite`), any case; null when there is no word. Global: reset
 * `lastIndex` after `test`.
 */
export function termsPattern(terms: readonly (readonly string[])[]): RegExp | null {
  const alternatives = terms
    .filter((words) => words.length > 0)
    .map((words) => words.map(escapeRegExp).join('[^\\p{L}\\p{N}]+'))
    .toSorted((a, b) => b.length - a.length);
  if (alternatives.length === 0) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
}
