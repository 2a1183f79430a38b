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
