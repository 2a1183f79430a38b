/** The classes judges use to read an observation (DESIGN.md, AgentWorldBench). */
export const CONTENT_CLASSES = [
  'deterministic',
  'structure',
  'numeric-live',
  'runtime-metadata',
  'unseen-content',
] as const;
export type ContentClass = (typeof CONTENT_CLASSES)[number];

/**
 * Relative weight of each class in the item score, over the classes the real observation has.
 * Deterministic content and structure weigh most: getting an echoed id or a JSON key wrong is a
 * factual or format error a judge never forgives; live numbers are checked with a tolerance; runtime
 * metadata and unseen pre-existing content are only judged by form, so they weigh least.
 */
export const CLASS_WEIGHTS: Record<ContentClass, number> = {
  deterministic: 4,
  structure: 3,
  'numeric-live': 2,
  'runtime-metadata': 1,
  'unseen-content': 1,
};

export interface Span {
  class: ContentClass;
  /** Offsets in the real observation after CRLF → LF and ANSI stripping. */
  start: number;
  end: number;
  text: string;
  /**
   * Where the prediction should have it: a JSON path (`flights[1].price`), a typed key path
   * (`flights[].price:number`), a line skeleton, or in text `before#n` (a number: the n-th after the
   * word `before`) or `token#n` (another token: its n-th occurrence).
   */
  anchor: string;
  /** Finer kind: `json-key`, `json-root`, `line`, `empty-output`, or a token kind (word, timestamp…). */
  kind: string;
}
