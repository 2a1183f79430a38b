import type { SearchMatch } from '@terrarium/schema';

export interface SnippetSegment {
  text: string;
  highlighted: boolean;
}

/**
 * Characters of context the list keeps before the first marked word. The excerpt comes with up to
 * 24 (packages/db search.ts) and the step's label takes ~20 more: in the list's narrow task column
 * the marked words themselves were cut off by the ellipsis (walk 45). The row's tooltip keeps the
 * whole excerpt.
 */
const LIST_LEAD = 12;

/** The text before a mark, cut to its last `max` characters at a word's start (`…` before). */
function shortLead(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = text.slice(text.length - max);
  const wordStart = tail.search(/(?<=\s)\S/);
  return `…${wordStart > 0 ? tail.slice(wordStart) : tail}`;
}

/**
 * The excerpt cut at its highlight ranges (ranges out of order or overlapping are skipped), with
 * at most `maxLead` characters of context before the first mark.
 */
export function snippetSegments(
  match: Pick<SearchMatch, 'text' | 'highlights'>,
  maxLead = Infinity,
): SnippetSegment[] {
  const segments: SnippetSegment[] = [];
  let at = 0;
  for (const [from, to] of match.highlights) {
    if (from < at || to <= from || to > match.text.length) continue;
    if (from > at) {
      const before = match.text.slice(at, from);
      const text = segments.length === 0 ? shortLead(before, maxLead) : before;
      segments.push({ text, highlighted: false });
    }
    segments.push({ text: match.text.slice(from, to), highlighted: true });
    at = to;
  }
  if (at < match.text.length) segments.push({ text: match.text.slice(at), highlighted: false });
  return segments;
}

const FIELD_LABELS: Record<SearchMatch['field'], string> = {
  action: 'action',
  message: 'message',
  observation: 'observation',
  reasoning: 'reasoning',
  task: 'task',
  id: 'id',
};

/** Where a search matched, as text with the matched words marked (never as markup). */
export function SearchSnippet({ match }: { match: SearchMatch }) {
  const where =
    match.step === null
      ? FIELD_LABELS[match.field]
      : `step ${match.step + 1} ${FIELD_LABELS[match.field]}`;
  return (
    <span className="search-snippet" data-testid="search-snippet">
      <span className="muted">{where}: </span>
      {snippetSegments(match, LIST_LEAD).map((segment, index) =>
        segment.highlighted ? (
          <mark key={index}>{segment.text}</mark>
        ) : (
          <span key={index}>{segment.text}</span>
        ),
      )}
    </span>
  );
}
