import type { TrajectorySummary } from '@terrarium/schema';
import type { Queryable } from './executor';

/**
 * Full-text search, the same on PGlite and PostgreSQL: `to_tsvector('simple', …)` per step (action,
 * reasoning, observation) and per trajectory (external id, task), GIN-indexed, queried with
 * `websearch_to_tsquery('simple', …)`.
 *
 * The default parser splits `get_user_details` or `mia_li_3668` into adjacent words on both sides,
 * so an identifier becomes a phrase query that finds exactly it. It keeps `/etc/passwd` or
 * `setup.py` whole, though, so the indexed text and the query both turn `/` and `.` into spaces
 * (SQL `translate` in terrarium_search_vector, `splitPathLike` here): `passwd` then finds
 * `/etc/passwd`, and `/etc/passwd` becomes the phrase "etc passwd".
 *
 * A query is split into clauses that each must hold somewhere in the trajectory (in any step or
 * the task), not all in one step: `keyboard Austin` finds a trajectory whose task says keyboard and
 * whose tool result says Austin; `-term` excludes trajectories that mention the term anywhere.
 */
export interface SearchClause {
  /** websearch_to_tsquery syntax: a word, a "quoted phrase", or `a or b`. */
  text: string;
  /** The trajectory must not match it anywhere. */
  negated: boolean;
}

// Beyond this many clauses a query costs more GIN lookups than it helps.
const MAX_CLAUSES = 8;

const HAS_WORD = /[\p{L}\p{N}]/u;

function splitPathLike(text: string): string {
  return text.replace(/[/.]+/g, ' ').trim();
}

function clauseText(body: string, quoted: boolean): string | null {
  // Quotes inside a phrase would end it early; websearch treats them as separators anyway.
  const words = splitPathLike(body.replaceAll('"', ' '));
  if (!HAS_WORD.test(words)) return null;
  return quoted || /\s/.test(words) ? `"${words}"` : words;
}

export function parseSearch(input: string): SearchClause[] {
  const clauses: SearchClause[] = [];
  let joinNext = false;
  for (const match of input.matchAll(/-?"[^"]*"?|\S+/g)) {
    const token = match[0];
    if (token.toLowerCase() === 'or') {
      joinNext = clauses.length > 0;
      continue;
    }
    const negated = token.length > 1 && token.startsWith('-');
    const raw = negated ? token.slice(1) : token;
    const quoted = raw.startsWith('"');
    const text = clauseText(quoted ? raw.replace(/^"|"$/g, '') : raw, quoted);
    if (text === null) continue;
    const previous = clauses[clauses.length - 1];
    if (joinNext && previous) {
      // `a or b` stays one clause; websearch_to_tsquery evaluates the alternation per document.
      const left = previous.negated ? `-${previous.text}` : previous.text;
      clauses[clauses.length - 1] = {
        text: `${left} or ${negated ? '-' : ''}${text}`,
        negated: false,
      };
    } else {
      clauses.push({ text, negated });
    }
    joinNext = false;
  }
  return clauses.slice(0, MAX_CLAUSES);
}

// ---- Snippets: where a search matched, for the list to show and the replay to open at. ----

/** Characters of context either side of the first match in a snippet. */
const SNIPPET_CONTEXT = 80;

/**
 * The words and phrases a search asks for (negated clauses and `or` left out), lower-cased, each
 * as the list of words the index sees (`/` and `.` split, as in the index).
 */
export function searchTerms(input: string): string[][] {
  const terms: string[][] = [];
  for (const clause of parseSearch(input)) {
    if (clause.negated) continue;
    for (const alternative of clause.text.split(/\s+or\s+/)) {
      if (alternative.startsWith('-')) continue;
      const words = alternative
        .replaceAll('"', ' ')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word !== '');
      if (words.length > 0) terms.push(words);
    }
  }
  return terms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * One pattern for all terms: a phrase's words in order with only separators between them, each
 * word whole (the index matches whole words, so `Austin` must not light up inside `Austinite`).
 */
function termPattern(terms: readonly string[][]): RegExp | null {
  if (terms.length === 0) return null;
  const alternatives = terms
    .map((words) => words.map(escapeRegExp).join('[^\\p{L}\\p{N}]+'))
    .toSorted((a, b) => b.length - a.length);
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
}

/** Match ranges of the terms in `text`, in order. */
export function highlightRanges(text: string, terms: readonly string[][]): [number, number][] {
  const pattern = termPattern(terms);
  if (pattern === null) return [];
  const ranges: [number, number][] = [];
  for (const match of text.matchAll(pattern)) {
    ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

/**
 * An excerpt of `text` around its first highlighted range, with the ranges shifted into it; the
 * whole start of the text when nothing highlights (the index may match a word form the pattern
 * does not, e.g. inside a path it split).
 */
export function snippetOf(
  text: string,
  terms: readonly string[][],
): { text: string; highlights: [number, number][] } {
  const flat = text.replace(/\s+/g, ' ');
  const ranges = highlightRanges(flat, terms);
  const first = ranges[0];
  const start = first === undefined ? 0 : Math.max(0, first[0] - SNIPPET_CONTEXT);
  const end = Math.min(
    flat.length,
    (first === undefined ? 0 : first[1]) +
      SNIPPET_CONTEXT +
      (first === undefined ? SNIPPET_CONTEXT : 0),
  );
  const prefix = start > 0 ? '…' : '';
  const suffix = end < flat.length ? '…' : '';
  const shift = prefix.length - start;
  return {
    text: `${prefix}${flat.slice(start, end)}${suffix}`,
    highlights: ranges
      .filter(([from, to]) => from >= start && to <= end)
      .map(([from, to]) => [from + shift, to + shift]),
  };
}

export interface MatchSource {
  trajectoryId: string;
  /** Null: no step matched, the trajectory's task or id did. */
  step: number | null;
  fields: { field: SearchMatchField; text: string | null }[];
}

export type SearchMatchField = 'action' | 'observation' | 'reasoning' | 'task' | 'id';

/** The first field of a matching step (or the task) that shows a term, as a snippet. */
export function matchOf(
  source: MatchSource,
  terms: readonly string[][],
): {
  step: number | null;
  field: SearchMatchField;
  text: string;
  highlights: [number, number][];
} | null {
  let fallback: { field: SearchMatchField; text: string } | null = null;
  for (const { field, text } of source.fields) {
    if (text === null || text === '') continue;
    fallback ??= { field, text };
    const snippet = snippetOf(text, terms);
    if (snippet.highlights.length > 0) return { step: source.step, field, ...snippet };
  }
  if (fallback === null) return null;
  return { step: source.step, field: fallback.field, ...snippetOf(fallback.text, terms) };
}

/**
 * Per trajectory of a listed page: its first step that matches any of the search's terms, with the
 * texts the index holds for it (an observation's indexed head and tail only, so a 50 MB output is
 * not read to make a snippet); trajectories no step matches come back with their task and id.
 * One query per page, on the same GIN index the listing's filter uses.
 */
export async function readMatchSources(
  executor: Pick<Queryable, 'query'>,
  trajectoryIds: readonly string[],
  search: string,
): Promise<MatchSource[]> {
  const clauses = parseSearch(search).filter((clause) => !clause.negated);
  if (trajectoryIds.length === 0 || clauses.length === 0) return [];
  const params: unknown[] = [trajectoryIds];
  const query = clauses
    .map((clause) => {
      params.push(clause.text);
      return `websearch_to_tsquery('simple', $${params.length})`;
    })
    .join(' || ');
  const rows = await executor.query(
    `SELECT t.id::text AS trajectory_id, t.external_id, t.task, m.idx, m.action_text, m.observation,
       m.reasoning
     FROM trajectories t
     LEFT JOIN LATERAL (
       SELECT s.idx,
         concat_ws(' ', s.action->>'name', s.action->>'command', s.action->>'keys',
           s.action->>'text', (s.action->'arguments')::text) AS action_text,
         terrarium_search_excerpt(s.observation_content) AS observation,
         terrarium_search_excerpt(s.reasoning) AS reasoning
       FROM steps s WHERE s.trajectory_id = t.id AND s.search @@ (${query})
       ORDER BY s.idx LIMIT 1) m ON true
     WHERE t.id = ANY($1::bigint[])`,
    params,
  );
  return rows.map((row) => {
    const text = (name: string): string | null => {
      const value = row[name];
      return typeof value === 'string' ? value : null;
    };
    const idx = row['idx'];
    const step = typeof idx === 'number' ? idx : null;
    return {
      trajectoryId: text('trajectory_id') ?? '',
      step,
      fields:
        step === null
          ? [
              { field: 'task', text: text('task') },
              { field: 'id', text: text('external_id') },
            ]
          : [
              { field: 'action', text: text('action_text') },
              { field: 'observation', text: text('observation') },
              { field: 'reasoning', text: text('reasoning') },
            ],
    };
  });
}

/** A page of listed trajectories with where `search` matched each (no search: as they are). */
export async function withSearchMatches<T extends TrajectorySummary>(
  executor: Pick<Queryable, 'query'>,
  rows: T[],
  search: string | undefined,
): Promise<T[]> {
  const terms = searchTerms(search ?? '');
  if (terms.length === 0) return rows;
  const sources = await readMatchSources(
    executor,
    rows.map((row) => row.id),
    search ?? '',
  );
  const matches = new Map(sources.map((source) => [source.trajectoryId, matchOf(source, terms)]));
  return rows.map((row) => {
    const match = matches.get(row.id);
    return match === undefined || match === null ? row : { ...row, match };
  });
}
