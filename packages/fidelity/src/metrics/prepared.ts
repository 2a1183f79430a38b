import { parseJsonDocument, shapeOf, type JsonShape } from '../text/json-value';
import { scoringText } from '../text/normalize';

const OTHER_WORD_CHAR = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

function isWordAt(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 128)
    return (
      (code >= 48 && code <= 57) ||
      (code >= 65 && code <= 90) ||
      (code >= 97 && code <= 122) ||
      code === 95
    );
  return OTHER_WORD_CHAR.test(text[i] ?? '');
}

/** Runs of letters, digits and underscore, and every other non-space character alone. */
export function metricTokens(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    // Space and ASCII control characters separate tokens, as does Unicode whitespace.
    if (code <= 32 || (code >= 128 && SPACE.test(text[i] ?? ''))) {
      i++;
      continue;
    }
    if (!isWordAt(text, i)) {
      tokens.push(text[i] ?? '');
      i++;
      continue;
    }
    let end = i + 1;
    while (end < text.length && isWordAt(text, end)) end++;
    tokens.push(text.slice(i, end));
    i = end;
  }
  return tokens;
}
// Whole numbers only: not the digits inside a hash, an id or a word.
const NUMBER = /(?<![\p{L}\p{N}_.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\p{L}\p{N}_])/gu;

/**
 * One observation, parsed lazily and at most once however many metrics read it (scoreRules passes the
 * same object to every metric).
 */
export class PreparedText {
  private parsedJson: { value: unknown } | null | undefined;
  private jsonShape: JsonShape | null | undefined;
  private metricTokens: string[] | undefined;
  private numberList: number[] | undefined;
  private cleanText: string | undefined;

  constructor(readonly raw: string) {}

  /** Line feeds only, no ANSI escapes. */
  get clean(): string {
    this.cleanText ??= scoringText(this.raw);
    return this.cleanText;
  }

  /** The parsed document when the text is a JSON object or array, else null. */
  get json(): { value: unknown } | null {
    if (this.parsedJson === undefined) this.parsedJson = parseJsonDocument(this.clean);
    return this.parsedJson;
  }

  get shape(): JsonShape | null {
    if (this.jsonShape === undefined) {
      const json = this.json;
      this.jsonShape = json === null ? null : shapeOf(json.value);
    }
    return this.jsonShape;
  }

  /** Words (letters, digits, underscore) and single punctuation marks, case kept. */
  get tokens(): string[] {
    this.metricTokens ??= metricTokens(this.clean);
    return this.metricTokens;
  }

  /** Every number in reading order. */
  get numbers(): number[] {
    this.numberList ??= (this.clean.match(NUMBER) ?? []).map(Number);
    return this.numberList;
  }
}
