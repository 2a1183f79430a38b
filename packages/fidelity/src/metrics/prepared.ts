import { parseJsonDocument, shapeOf, type JsonShape } from '../text/json-value';
import { terminalText } from '../text/normalize';

const METRIC_TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
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
    this.cleanText ??= terminalText(this.raw);
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
    this.metricTokens ??= this.clean.match(METRIC_TOKEN) ?? [];
    return this.metricTokens;
  }

  /** Every number in reading order. */
  get numbers(): number[] {
    this.numberList ??= (this.clean.match(NUMBER) ?? []).map(Number);
    return this.numberList;
  }
}
