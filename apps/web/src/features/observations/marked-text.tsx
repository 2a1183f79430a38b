import { phraseWords, termsPattern } from '@terrarium/schema';
import { useEffect, type ReactNode, type RefObject } from 'react';

const patterns = new WeakMap<readonly string[], RegExp | null>();

/**
 * The pattern of the marked words and phrases (`termsPattern`, as the list's snippets highlight
 * them): whole words, a phrase's words whatever separates them, any case. Built once per list of
 * marks.
 */
export function markPattern(words: readonly string[]): RegExp | null {
  const known = patterns.get(words);
  if (known !== undefined) return known;
  const pattern = termsPattern(words.map(phraseWords));
  patterns.set(words, pattern);
  return pattern;
}

/** Whether `text` holds a marked word or phrase (`markPattern`). */
export function holdsMark(text: string, words: readonly string[]): boolean {
  const pattern = markPattern(words);
  if (pattern === null) return false;
  // A global pattern's `test` moves `lastIndex`, which `matchAll` would start from: put it back.
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

/** The index of the first line holding a marked word or phrase, or null. */
export function firstMarkedLine(lines: readonly string[], words: readonly string[]): number | null {
  if (words.length === 0) return null;
  const index = lines.findIndex((line) => holdsMark(line, words));
  return index < 0 ? null : index;
}

/** `text` with each marked word or phrase (`markPattern`) in a `<mark>`: text nodes, never markup. */
export function MarkedText({ text, words }: { text: string; words: readonly string[] }) {
  const pattern = markPattern(words);
  if (pattern === null) return <>{text}</>;
  const parts: ReactNode[] = [];
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) parts.push(text.slice(at, match.index));
    parts.push(<mark key={match.index}>{match[0]}</mark>);
    at = match.index + match[0].length;
  }
  if (at === 0) return <>{text}</>;
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}

/**
 * Scrolls the first `<mark>` inside `container` into view when it mounts or the marks change (the
 * replay mounts a step's view per step): a search result opens where its words are, not at the top
 * of a tall terminal output.
 */
export function useScrollToFirstMark(
  container: RefObject<HTMLElement | null>,
  marks: readonly string[],
): void {
  useEffect(() => {
    if (marks.length === 0) return;
    // A virtualized output renders its marked line once it has scrolled to it: the output
    // itself is scrolled into view then.
    const target = container.current?.querySelector('mark, [data-marked]');
    target?.scrollIntoView({ block: 'center' });
  }, [container, marks]);
}
