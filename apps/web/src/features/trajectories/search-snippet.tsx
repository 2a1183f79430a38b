import type { SearchMatch } from '@terrarium/schema';

export interface SnippetSegment {
  text: string;
  highlighted: boolean;
}

/** The excerpt cut at its highlight ranges (ranges out of order or overlapping are skipped). */
export function snippetSegments(match: Pick<SearchMatch, 'text' | 'highlights'>): SnippetSegment[] {
  const segments: SnippetSegment[] = [];
  let at = 0;
  for (const [from, to] of match.highlights) {
    if (from < at || to <= from || to > match.text.length) continue;
    if (from > at) segments.push({ text: match.text.slice(at, from), highlighted: false });
    segments.push({ text: match.text.slice(from, to), highlighted: true });
    at = to;
  }
  if (at < match.text.length) segments.push({ text: match.text.slice(at), highlighted: false });
  return segments;
}

const FIELD_LABELS: Record<SearchMatch['field'], string> = {
  action: 'action',
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
      {snippetSegments(match).map((segment, index) =>
        segment.highlighted ? (
          <mark key={index}>{segment.text}</mark>
        ) : (
          <span key={index}>{segment.text}</span>
        ),
      )}
    </span>
  );
}
