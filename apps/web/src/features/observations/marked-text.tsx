import { useEffect, type ReactNode, type RefObject } from 'react';

/** `text` with each occurrence of a marked word in a `<mark>` (text nodes only: never markup). */
export function MarkedText({ text, words }: { text: string; words: readonly string[] }) {
  if (words.length === 0) return <>{text}</>;
  const folded = text.toLowerCase();
  const lower = words.map((word) => word.toLowerCase());
  const parts: ReactNode[] = [];
  let at = 0;
  while (at < text.length) {
    let next = -1;
    let length = 0;
    for (const word of lower) {
      const found = folded.indexOf(word, at);
      if (
        found !== -1 &&
        (next === -1 || found < next || (found === next && word.length > length))
      ) {
        next = found;
        length = word.length;
      }
    }
    if (next === -1) break;
    if (next > at) parts.push(text.slice(at, next));
    parts.push(<mark key={next}>{text.slice(next, next + length)}</mark>);
    at = next + length;
  }
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
    container.current?.querySelector('mark')?.scrollIntoView({ block: 'center' });
  }, [container, marks]);
}
