import { termsPattern, type SearchMatch, type TrajectorySummary } from '@terrarium/schema';
import type { Queryable } from './executor';
import { textColumn } from './row';
import { searchExcerpt, stepSearchFields } from './search-vector';
import { stepsOfPage } from './step-pages';

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
 *
 * Steps are stored in pages (migration 015) with one vector per step, so a clause matches a step
 * exactly as before (`unnest(p.search) … @@`); the GIN index is on each page's lexemes without
 * positions, which can rule a page out but not in when the query holds a phrase (`<->`), so then
 * the step vectors decide (`stepSearchCondition`).
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

/** A clause's query as the database parses it, and how its SQL must be shaped. */
export interface ClauseQuery {
  /** `websearch_to_tsquery('simple', …)` as text; '' when the clause holds no lexeme. */
  tsquery: string;
  negated: boolean;
  /** Adjacency (`<->`, `<N>`): page lexemes only rule pages out; step vectors decide. */
  hasPhrase: boolean;
  /** A `!` inside the clause (`a or -b`): page lexemes cannot rule a page out either. */
  hasNot: boolean;
  /** The query with adjacency as AND: what a page's lexemes must satisfy for a phrase to match. */
  relaxed: string;
}

/** The database's parse of each clause, in one round trip. */
export async function clauseQueries(
  executor: Pick<Queryable, 'query'>,
  clauses: readonly SearchClause[],
): Promise<ClauseQuery[]> {
  if (clauses.length === 0) return [];
  const rows = await executor.query(
    `SELECT websearch_to_tsquery('simple', c.t)::text AS q
     FROM unnest($1::text[]) WITH ORDINALITY AS c(t, o) ORDER BY c.o`,
    [clauses.map((clause) => clause.text)],
  );
  return clauses.map((clause, at) => {
    const row = rows[at];
    const tsquery = row === undefined ? '' : textColumn(row, 'q');
    return { negated: clause.negated, ...tsqueryShape(tsquery) };
  });
}

/**
 * Reads a tsquery's text (`'a' <-> 'b' | !'c'`): lexemes are quoted with '' for a quote, so
 * operators are whatever lies outside quotes.
 */
export function tsqueryShape(tsquery: string): Omit<ClauseQuery, 'negated'> {
  let relaxed = '';
  let hasPhrase = false;
  let hasNot = false;
  let at = 0;
  while (at < tsquery.length) {
    const char = tsquery[at];
    if (char === "'") {
      let end = at + 1;
      while (end < tsquery.length) {
        if (tsquery[end] === "'" && tsquery[end + 1] === "'") end += 2;
        else if (tsquery[end] === "'") break;
        else end++;
      }
      relaxed += tsquery.slice(at, end + 1);
      at = end + 1;
      continue;
    }
    if (char === '<') {
      const close = tsquery.indexOf('>', at);
      hasPhrase = true;
      relaxed += '&';
      at = close < 0 ? tsquery.length : close + 1;
      continue;
    }
    if (char === '!') hasNot = true;
    relaxed += char;
    at++;
  }
  return { tsquery, hasPhrase, hasNot, relaxed };
}

/**
 * SQL that is true for a page (alias `p`) with a step matching `query` (a tsquery expression);
 * `relaxed` is the expression of its relaxed form. Uses the lexeme index unless the query has a
 * `!`, whose pages a missing lexeme cannot rule out.
 */
export function stepSearchCondition(
  query: string,
  relaxed: string,
  shape: { hasPhrase: boolean; hasNot: boolean },
): string {
  const steps = `EXISTS (SELECT 1 FROM unnest(p.search) AS v(vector) WHERE v.vector @@ ${query})`;
  if (shape.hasNot) return steps;
  // Without adjacency, a page has a step matching the query exactly when its lexemes match it.
  if (!shape.hasPhrase) return `p.lexemes @@ ${query}`;
  return `p.lexemes @@ ${relaxed} AND ${steps}`;
}

// ---- Snippets: where a search matched, for the list to show and the replay to open at. ----

/**
 * Context kept before and after the first match in a snippet. Little before it: a list shows the
 * snippet in a column a few dozen characters wide, and the match must be in what shows.
 */
const SNIPPET_BEFORE = 24;
const SNIPPET_AFTER = 120;
/** About what a list's column shows of a snippet: where the terms should be. */
const SNIPPET_SEEN = 48;

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

/** Match ranges of the terms in `text`, in order. */
export function highlightRanges(text: string, terms: readonly string[][]): [number, number][] {
  const pattern = termsPattern(terms);
  if (pattern === null) return [];
  const ranges: [number, number][] = [];
  for (const match of text.matchAll(pattern)) {
    ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

/** Counts of the terms in a window of ranges, by their text lower-cased. */
class TermWindow {
  private readonly counts = new Map<string, number>();
  constructor(
    private readonly text: string,
    private readonly ranges: readonly [number, number][],
  ) {}
  get distinct(): number {
    return this.counts.size;
  }
  private term(at: number): string {
    const [from, to] = this.ranges[at] ?? [0, 0];
    return this.text.slice(from, to).toLowerCase();
  }
  add(at: number): void {
    const term = this.term(at);
    this.counts.set(term, (this.counts.get(term) ?? 0) + 1);
  }
  remove(at: number): void {
    const term = this.term(at);
    const left = (this.counts.get(term) ?? 0) - 1;
    if (left > 0) this.counts.set(term, left);
    else this.counts.delete(term);
  }
}

/**
 * The range to start a snippet at: where the most different terms come together within what a
 * list's column shows of a snippet, and of such places the tightest, then the first
 * (`hastads attack` starts at `Performing hastads attack`, not at an earlier `… attack.`).
 */
function richestRange(text: string, ranges: readonly [number, number][]): number {
  const startOf = (at: number) => ranges[at]?.[0] ?? 0;
  const endOf = (at: number) => ranges[at]?.[1] ?? 0;
  // The most different terms any window of SNIPPET_SEEN characters holds.
  let most = 0;
  const seen = new TermWindow(text, ranges);
  for (let first = 0, end = 0; first < ranges.length; first++) {
    while (end < ranges.length && endOf(end) <= startOf(first) + SNIPPET_SEEN) seen.add(end++);
    most = Math.max(most, seen.distinct);
    seen.remove(first);
  }
  // The shortest run of ranges that holds that many.
  let best = 0;
  let bestSpan = Number.POSITIVE_INFINITY;
  const window = new TermWindow(text, ranges);
  for (let first = 0, last = 0; last < ranges.length; last++) {
    window.add(last);
    while (window.distinct >= most && first <= last) {
      const span = endOf(last) - startOf(first);
      if (span < bestSpan) {
        best = first;
        bestSpan = span;
      }
      window.remove(first++);
    }
  }
  return best;
}

/**
 * An excerpt of `text` around its highlighted range that starts the most terms (`richestRange`), with the ranges shifted into it; the
 * whole start of the text when nothing highlights (the index may match a word form the pattern
 * does not, e.g. inside a path it split).
 */
export function snippetOf(
  text: string,
  terms: readonly string[][],
): { text: string; highlights: [number, number][] } {
  const flat = text.replace(/\s+/g, ' ');
  const ranges = highlightRanges(flat, terms);
  const first = ranges[richestRange(flat, ranges)];
  let start = first === undefined ? 0 : Math.max(0, first[0] - SNIPPET_BEFORE);
  // Begin at a word, not inside one (`…ase provide`), when a space comes before the match.
  if (first !== undefined && start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space < first[0]) start = space + 1;
  }
  const end = Math.min(
    flat.length,
    (first === undefined ? 0 : first[1]) +
      SNIPPET_AFTER +
      (first === undefined ? SNIPPET_BEFORE : 0),
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

export type SearchMatchField = SearchMatch['field'];

/** How many different terms a snippet highlights (`Attack` and `attack` are one). */
function termsShown(snippet: { text: string; highlights: [number, number][] }): number {
  return new Set(snippet.highlights.map(([from, to]) => snippet.text.slice(from, to).toLowerCase()))
    .size;
}

/**
 * The field of a matching step (or the task) that shows the most of the search's terms, the first
 * of those, as a snippet.
 */
export function matchOf(
  source: MatchSource,
  terms: readonly string[][],
): {
  step: number | null;
  field: SearchMatchField;
  text: string;
  highlights: [number, number][];
} | null {
  let best: { field: SearchMatchField; text: string; highlights: [number, number][] } | null = null;
  let bestShown = -1;
  for (const { field, text } of source.fields) {
    if (text === null || text === '') continue;
    const snippet = snippetOf(text, terms);
    const shown = termsShown(snippet);
    if (shown > bestShown) {
      best = { field, ...snippet };
      bestShown = shown;
    }
  }
  return best === null ? null : { step: source.step, ...best };
}

/**
 * Per trajectory of a listed page: its step that matches the most of the search's clauses (the
 * first of those), with the
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
  const queries = (await clauseQueries(executor, clauses)).filter((query) => query.tsquery !== '');
  const params: unknown[] = [trajectoryIds];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}::tsquery`;
  };
  const clauseParams = queries.map((clause) => param(clause.tsquery));
  const query = clauseParams.join(' || ');
  const relaxed = queries.map((clause) => param(clause.relaxed)).join(' || ');
  // The step that holds the most of the search's clauses, the first of those: `hastads attack`
  // opens where both words are, not at an earlier step that only says `attack`. With one clause
  // every matching step holds it, and the first is found without reading the others.
  const clausesHeld = clauseParams.map((clause) => `(v.vector @@ ${clause})::int`).join(' + ');
  const firstStep =
    queries.length === 0
      ? ''
      : `LEFT JOIN LATERAL (
       SELECT p.first_idx, p.first_idx + v.ordinal::int - 1 AS idx
       FROM step_pages p CROSS JOIN LATERAL unnest(p.search) WITH ORDINALITY AS v(vector, ordinal)
       WHERE p.trajectory_id = t.id AND v.vector @@ (${query})
         ${queries.some((clause) => clause.hasNot) ? '' : `AND p.lexemes @@ (${relaxed})`}
       ORDER BY ${queries.length > 1 ? `${clausesHeld} DESC, ` : ''}p.first_idx, v.ordinal
       LIMIT 1) m ON true`;
  const rows = await executor.query(
    `SELECT t.id::text AS trajectory_id, t.external_id, t.task
       ${firstStep === '' ? ', NULL::int AS first_idx, NULL::int AS idx' : ', m.first_idx, m.idx'}
     FROM trajectories t ${firstStep}
     WHERE t.id = ANY($1::bigint[])`,
    params,
  );
  const pageKeys = rows.flatMap((row) =>
    typeof row['idx'] === 'number' && typeof row['first_idx'] === 'number'
      ? [{ trajectory: textColumn(row, 'trajectory_id'), first: row['first_idx'] }]
      : [],
  );
  const pages = new Map<string, Awaited<ReturnType<typeof stepsOfPage>>>();
  if (pageKeys.length > 0) {
    const pageRows = await executor.query(
      `SELECT p.trajectory_id::text AS trajectory_id, p.first_idx, p.body, p.body_json
       FROM step_pages p
       JOIN unnest($1::bigint[], $2::int[]) AS k(t, f) ON p.trajectory_id = k.t AND p.first_idx = k.f`,
      [pageKeys.map((key) => key.trajectory), pageKeys.map((key) => key.first)],
    );
    for (const page of pageRows) {
      pages.set(
        `${textColumn(page, 'trajectory_id')}:${String(page['first_idx'])}`,
        await stepsOfPage(page),
      );
    }
  }
  return rows.map((row) => {
    const text = (name: string): string | null => {
      const value = row[name];
      return typeof value === 'string' ? value : null;
    };
    const trajectoryId = text('trajectory_id') ?? '';
    const idx = row['idx'];
    const first = row['first_idx'];
    const step =
      typeof idx === 'number' && typeof first === 'number'
        ? pages.get(`${trajectoryId}:${first}`)?.[idx - first]
        : undefined;
    if (step === undefined || typeof idx !== 'number') {
      return {
        trajectoryId,
        step: null,
        fields: [
          { field: 'task', text: text('task') },
          { field: 'id', text: text('external_id') },
        ],
      };
    }
    const indexed = stepSearchFields(step);
    return {
      trajectoryId,
      step: idx,
      fields: [
        { field: step.action.type === 'message' ? 'message' : 'action', text: indexed.action },
        { field: 'observation', text: excerpt(indexed.content) },
        { field: 'reasoning', text: excerpt(indexed.reasoning) },
      ],
    };
  });
}

function excerpt(value: string | null): string | null {
  return value === null ? null : searchExcerpt(value);
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
