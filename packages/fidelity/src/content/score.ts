import { increasingRun } from '../align/anchored';
import { numericCloseness } from '../metrics/numeric';
import { lengthRatio } from '../metrics/overlap';
import { parseJsonDocument, type JsonLeaf } from '../text/json-value';
import { scoringText } from '../text/normalize';
import { collapsedShape, exactShape, scanTokens, type Token } from '../text/tokens';
import type { HistoryTurn } from '../types';
import { CLASS_WEIGHTS, CONTENT_CLASSES, type ContentClass, type Span } from './classes';
import {
  classifyObservation,
  isMetadataKind,
  lineSkeletons,
  numberAnchors,
  OUTCOME_KINDS,
  type ClassifiedObservation,
} from './classify';
import { scalarValue } from './scalar';
import type { HistoryIndex } from './history-index';
import { lexJson } from './json-lexer';

/** Credit for deterministic content or a line that is present but out of order. */
export const ORDER_CREDIT = 0.5;

/**
 * Factor applied to the whole item when the prediction contradicts deterministic content (a value the
 * history fixes is replaced by another). Judges fail Factuality on the first invented or contradicted
 * fact, so one contradiction must cost more than a lost key or a reordering: without it, one wrong id
 * among fifty right values would barely move the deterministic mean.
 */
export const CONTRADICTION_FACTOR = 0.75;

export interface SpanVerdict {
  span: Span;
  class: ContentClass;
  /** Full credit. */
  matched: boolean;
  credit: number;
  why: string;
}

export interface ClassScore {
  score: number;
  /** Share of this class in the item score (weights of the classes present, normalized). */
  weight: number;
  spans: number;
}

export interface ContentClassScore {
  score: number;
  /** Deterministic spans the prediction contradicts (in text: lacks); any → score × CONTRADICTION_FACTOR. */
  contradictions: number;
  byClass: Partial<Record<ContentClass, ClassScore>>;
  explanation: SpanVerdict[];
}

/** The prediction, cut the same way as the real observation; built once per prediction. */
class PredictionView {
  readonly text: string;
  private scanned: Token[] | undefined;
  private positions: Map<string, number[]> | undefined;
  private numbers: Map<string, number> | undefined;
  private metadata: Map<string, number> | undefined;
  private metadataKindCounts: Map<string, number> | undefined;
  private shapes: Map<string, number> | undefined;
  private jsonView:
    | { typedPaths: Set<string>; leafByPath: Map<string, JsonLeaf>; values: Set<string> }
    | null
    | undefined;

  constructor(raw: string) {
    this.text = scoringText(raw);
  }

  get tokens(): Token[] {
    this.scanned ??= scanTokens(this.text);
    return this.scanned;
  }

  get tokenPositions(): Map<string, number[]> {
    if (this.positions === undefined) {
      this.positions = new Map();
      this.tokens.forEach((token, i) => {
        const list = this.positions?.get(token.text);
        if (list === undefined) this.positions?.set(token.text, [i]);
        else list.push(i);
      });
    }
    return this.positions;
  }

  get numbersByAnchor(): Map<string, number> {
    if (this.numbers === undefined) {
      this.numbers = new Map();
      const anchors = numberAnchors(this.tokens);
      this.tokens.forEach((token, i) => {
        const anchor = anchors[i];
        if (anchor) this.numbers?.set(anchor, Number(token.text));
      });
    }
    return this.numbers;
  }

  /** Counts of `kind:exact shape` of metadata tokens, consumed as real spans find them. */
  get metadataSignatures(): Map<string, number> {
    if (this.metadata === undefined) {
      this.metadata = new Map();
      this.metadataKindCounts = new Map();
      for (const token of this.tokens) {
        if (!isMetadataKind(token.kind)) continue;
        increment(this.metadata, metadataSignature(token.kind, token.text));
        increment(this.metadataKindCounts, token.kind);
      }
    }
    return this.metadata;
  }

  get metadataKinds(): Map<string, number> {
    if (this.metadataKindCounts === undefined) void this.metadataSignatures;
    return this.metadataKindCounts ?? new Map();
  }

  /** Counts of collapsed token shapes, consumed as unseen spans find them. */
  get shapeCounts(): Map<string, number> {
    if (this.shapes === undefined) {
      this.shapes = new Map();
      for (const token of this.tokens) increment(this.shapes, collapsedShape(token.text));
    }
    return this.shapes;
  }

  get json(): {
    typedPaths: Set<string>;
    leafByPath: Map<string, JsonLeaf>;
    values: Set<string>;
  } | null {
    if (this.jsonView === undefined) {
      if (parseJsonDocument(this.text) === null) this.jsonView = null;
      else {
        // Leaves come from the lexer, in text order: JSON.parse moves integer-like keys first, which
        // would shift the positions of id-keyed entries (see isDynamicKey).
        const leafByPath = new Map<string, JsonLeaf>();
        const values = new Set<string>();
        const lexed = lexJson(this.text);
        for (const leaf of lexed.leaves) {
          leafByPath.set(leaf.path, {
            path: leaf.path,
            text: leaf.value,
            number: leaf.type === 'number' ? Number(leaf.value) : null,
          });
          values.add(leaf.value);
        }
        this.jsonView = { typedPaths: lexed.typedPaths, leafByPath, values };
      }
    }
    return this.jsonView;
  }
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Takes one from a count; true when there was one. */
function consume(map: Map<string, number>, key: string): boolean {
  const left = map.get(key) ?? 0;
  if (left === 0) return false;
  map.set(key, left - 1);
  return true;
}

/**
 * The format a metadata value must keep. Times keep every digit position (`99:99:99`); hashes, UUIDs,
 * ids and temp names keep their length and punctuation but not which characters are digits (a new
 * hash has digits elsewhere); PIDs, sizes and durations keep their shape with digit runs collapsed.
 */
export function metadataSignature(kind: string, text: string): string {
  switch (kind) {
    case 'timestamp':
    case 'date':
    case 'time':
      return `${kind}:${exactShape(text)}`;
    case 'hex':
    case 'uuid':
    case 'id':
    case 'temp-name':
      return `${kind}:${maskAlphanumerics(text)}`;
    default:
      return `${kind}:${collapsedShape(text)}`;
  }
}

type Verdict = { credit: number; why: string; contradiction?: boolean };
const IN_ORDER: Verdict = { credit: 1, why: 'present, in order' };
const OUT_OF_ORDER: Verdict = { credit: ORDER_CREDIT, why: 'present, but out of order' };
const MISSING: Verdict = { credit: 0, why: 'missing from the prediction' };
// In text, a deterministic token that is absent was, in practice, replaced: there is no place to leave
// it out without changing the text around it.
const ABSENT_FACT: Verdict = {
  credit: 0,
  why: 'missing or changed in the prediction',
  contradiction: true,
};

/**
 * Scores a prediction against the real observation by content class. Each class is scored by its
 * rule, the item score is the weighted mean over the classes present (CLASS_WEIGHTS), and every span
 * gets a verdict saying whether it matched and why. An empty real observation scores 1 only against an
 * empty prediction.
 */
export function scoreContentClasses(
  predicted: string,
  real: string,
  history: readonly HistoryTurn[] | HistoryIndex,
  currentAction = '',
): ContentClassScore {
  return scoreClassified(predicted, classifyObservation(real, history, currentAction));
}

/** Scores a prediction against an observation classified once (one classification, many simulators). */
export function scoreClassified(predicted: string, real: ClassifiedObservation): ContentClassScore {
  const view = new PredictionView(predicted);
  if (real.mode === 'empty') {
    const empty = view.text.trim() === '';
    const span = real.spans[0];
    const explanation: SpanVerdict[] =
      span === undefined
        ? []
        : [
            {
              span,
              class: 'structure',
              matched: empty,
              credit: empty ? 1 : 0,
              why: empty ? 'empty, like the real output' : 'the real output is empty',
            },
          ];
    return {
      score: empty ? 1 : 0,
      contradictions: 0,
      byClass: { structure: { score: empty ? 1 : 0, weight: 1, spans: 1 } },
      explanation,
    };
  }
  if (real.mode === 'scalar') return scoreScalar(real, view);
  const verdicts = real.mode === 'json' ? judgeJson(real, view) : judgeText(real, view);
  let contradictions = 0;
  const explanation: SpanVerdict[] = real.spans.map((span, i) => {
    const verdict = verdicts[i] ?? MISSING;
    if (verdict.contradiction === true) contradictions++;
    return {
      span,
      class: span.class,
      matched: verdict.credit >= 1,
      credit: verdict.credit,
      why: verdict.why,
    };
  });
  return aggregate(real, view, explanation, contradictions);
}

/**
 * A scalar observation is checked as a whole: the same value (JSON quotes and number formatting
 * aside) scores 1. Otherwise its words are deterministic tokens: all of them inside a little extra
 * text keep ORDER_CREDIT; a missing or changed word is a contradiction, and the credit is the share
 * of its words found in order (a one-word status that differs scores 0).
 */
function scoreScalar(real: ClassifiedObservation, view: PredictionView): ContentClassScore {
  const span = real.spans[0];
  const expected = scalarValue(real.text) ?? real.text.trim();
  const got = scalarValue(view.text);
  let verdict: Verdict;
  if (got === expected) {
    verdict = { credit: 1, why: 'the same value' };
  } else {
    const expectedWords = expected.split(/\s+/);
    const short = view.text.length <= 4 * Math.max(expected.length, 8);
    const found = short ? wordsInOrder(expectedWords, view.text.trim().split(/\s+/)) : 0;
    verdict =
      found === expectedWords.length
        ? { credit: ORDER_CREDIT, why: `the value ${expected} with other text around it` }
        : {
            credit: found / expectedWords.length,
            why:
              got === null ? `not the single value ${expected}` : `${got} instead of ${expected}`,
            contradiction: true,
          };
  }
  const contradictions = verdict.contradiction === true ? 1 : 0;
  const score = verdict.credit * (contradictions > 0 ? CONTRADICTION_FACTOR : 1);
  return {
    score,
    contradictions,
    byClass: { deterministic: { score: verdict.credit, weight: 1, spans: 1 } },
    explanation:
      span === undefined
        ? []
        : [
            {
              span,
              class: 'deterministic',
              matched: verdict.credit >= 1,
              credit: verdict.credit,
              why: verdict.why,
            },
          ],
  };
}

/** How many of `wanted` appear in `words` in order (greedy), punctuation around a word ignored. */
const bare = (word: string) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

function wordsInOrder(wanted: readonly string[], words: readonly string[]): number {
  let at = 0;
  let found = 0;
  for (const word of wanted) {
    const target = bare(word);
    let next = at;
    while (next < words.length && bare(words[next] ?? '') !== target) next++;
    // A word not found is skipped; the next one is searched from the same place.
    if (next >= words.length) continue;
    found++;
    at = next + 1;
  }
  return found;
}

function aggregate(
  real: ClassifiedObservation,
  view: PredictionView,
  explanation: SpanVerdict[],
  contradictions: number,
): ContentClassScore {
  const credit = new Map<ContentClass, number>();
  const count = new Map<ContentClass, number>();
  for (const verdict of explanation) {
    credit.set(verdict.class, (credit.get(verdict.class) ?? 0) + verdict.credit);
    increment(count, verdict.class);
  }
  const scores = new Map<ContentClass, number>();
  for (const cls of CONTENT_CLASSES) {
    const n = count.get(cls) ?? 0;
    if (n === 0) continue;
    let score = (credit.get(cls) ?? 0) / n;
    if (cls === 'structure') score = structureScore(real, view, credit.get(cls) ?? 0, n);
    // Form alone cannot tell a short plausible answer from a full one; length can.
    if (cls === 'unseen-content' && real.mode === 'text')
      score *= Math.sqrt(lengthRatio(view.text, real.text));
    scores.set(cls, score);
  }
  let totalWeight = 0;
  for (const cls of scores.keys()) totalWeight += CLASS_WEIGHTS[cls];
  const byClass: Partial<Record<ContentClass, ClassScore>> = {};
  let weighted = 0;
  for (const [cls, score] of scores) {
    byClass[cls] = { score, weight: CLASS_WEIGHTS[cls] / totalWeight, spans: count.get(cls) ?? 0 };
    weighted += CLASS_WEIGHTS[cls] * score;
  }
  // Dividing once by the raw total keeps a perfect prediction at exactly 1.
  let score = Math.min(1, weighted / totalWeight);
  if (contradictions > 0) score *= CONTRADICTION_FACTOR;
  return { score, contradictions, byClass, explanation };
}

/** Structure is penalized for extra keys or lines too (Jaccard-like), not only for missing ones. */
function structureScore(
  real: ClassifiedObservation,
  view: PredictionView,
  credit: number,
  n: number,
): number {
  if (real.mode === 'json') {
    const predicted = view.json;
    if (predicted === null) return 0;
    let common = 0;
    for (const path of real.typedPaths) if (predicted.typedPaths.has(path)) common++;
    return common / (real.typedPaths.size + predicted.typedPaths.size - common);
  }
  const predictedLines = lineSkeletons(view.text, view.tokens).filter(
    (line) => line.skeleton !== '',
  ).length;
  return credit / Math.max(n, predictedLines);
}

/**
 * Ordered presence: the n-th real occurrence of a text looks for the n-th occurrence in the prediction
 * (`occurrence` null: the next unused one); the longest increasing run of positions is in order.
 */
function orderedPresence(
  wanted: readonly { text: string; occurrence: number | null }[],
  available: Map<string, number[]>,
): Verdict[] {
  const used = new Map<string, number>();
  const positions = wanted.map(({ text, occurrence }) => {
    const list = available.get(text);
    const next = occurrence ?? used.get(text) ?? 0;
    if (list === undefined || next >= list.length) return -1;
    used.set(text, next + 1);
    return list[next] ?? -1;
  });
  const inOrder = increasingRun(positions);
  return positions.map((position, i) =>
    position < 0 ? MISSING : inOrder[i] ? IN_ORDER : OUT_OF_ORDER,
  );
}

function judgeText(real: ClassifiedObservation, view: PredictionView): Verdict[] {
  const verdicts: Verdict[] = Array.from({ length: real.spans.length }, () => MISSING);
  const deterministic: number[] = [];
  const lines: number[] = [];
  real.spans.forEach((span, i) => {
    if (span.class === 'deterministic') deterministic.push(i);
    else if (span.class === 'structure') lines.push(i);
  });
  orderedPresence(
    deterministic.map((i) => {
      const anchor = real.spans[i]?.anchor ?? '';
      return {
        text: real.spans[i]?.text ?? '',
        occurrence: Number(anchor.slice(anchor.lastIndexOf('#') + 1)),
      };
    }),
    view.tokenPositions,
  ).forEach(
    (verdict, k) => (verdicts[deterministic[k] ?? 0] = verdict === MISSING ? ABSENT_FACT : verdict),
  );

  const predictedLines = new Map<string, number[]>();
  lineSkeletons(view.text, view.tokens).forEach((line, i) => {
    if (line.skeleton === '') return;
    const list = predictedLines.get(line.skeleton);
    if (list === undefined) predictedLines.set(line.skeleton, [i]);
    else list.push(i);
  });
  orderedPresence(
    lines.map((i) => ({ text: real.spans[i]?.anchor ?? '', occurrence: null })),
    predictedLines,
  ).forEach((verdict, k) => (verdicts[lines[k] ?? 0] = verdict));

  const metadata = new Map(view.metadataSignatures);
  const kinds = new Map(view.metadataKinds);
  const shapes = new Map(view.shapeCounts);
  real.spans.forEach((span, i) => {
    if (span.class === 'runtime-metadata') verdicts[i] = judgeMetadataToken(span, metadata, kinds);
    else if (span.class === 'numeric-live')
      verdicts[i] = judgeNumber(Number(span.text), view.numbersByAnchor.get(span.anchor));
    else if (span.class === 'unseen-content')
      verdicts[i] = consume(shapes, collapsedShape(span.text))
        ? { credit: 1, why: 'a token of the same form is present' }
        : { credit: 0, why: 'no token of this form in the prediction' };
  });
  return verdicts;
}

function judgeMetadataToken(
  span: Span,
  signatures: Map<string, number>,
  kinds: Map<string, number>,
): Verdict {
  if (consume(signatures, metadataSignature(span.kind, span.text)))
    return { credit: 1, why: `a ${span.kind} in the same format is present` };
  if (consume(kinds, span.kind))
    return { credit: 0.5, why: `a ${span.kind} is present, in another format` };
  return { credit: 0, why: `no ${span.kind} in the prediction` };
}

function judgeNumber(real: number, predicted: number | undefined): Verdict {
  if (predicted === undefined || Number.isNaN(predicted))
    return { credit: 0, why: 'no number at this place' };
  const credit = numericCloseness(predicted, real);
  if (credit >= 1) return { credit, why: predicted === real ? 'same number' : 'within 10%' };
  return { credit, why: `${predicted} is off by ${formatPercent(predicted, real)}` };
}

function formatPercent(predicted: number, real: number): string {
  const scale = Math.max(Math.abs(predicted), Math.abs(real));
  return `${Math.round((Math.abs(predicted - real) / scale) * 100)}%`;
}

function judgeJson(real: ClassifiedObservation, view: PredictionView): Verdict[] {
  const predicted = view.json;
  // A prediction that is not JSON keeps half credit for content it still contains, as text.
  const fallbackMetadata =
    predicted === null ? new Map(view.metadataSignatures) : new Map<string, number>();
  const fallbackKinds =
    predicted === null ? new Map(view.metadataKinds) : new Map<string, number>();
  return real.spans.map((span): Verdict => {
    if (span.class === 'structure') {
      if (predicted === null) return { credit: 0, why: 'the prediction is not JSON' };
      return predicted.typedPaths.has(span.anchor)
        ? { credit: 1, why: 'same key, same value type' }
        : { credit: 0, why: `no ${span.anchor} in the prediction` };
    }
    const leaf = predicted?.leafByPath.get(span.anchor);
    switch (span.class) {
      case 'deterministic':
        if (leaf?.text === span.text) return { credit: 1, why: 'same value at the same path' };
        // A status or a boolean elsewhere in the prediction says nothing about this one.
        if (OUTCOME_KINDS.has(span.kind))
          return leaf === undefined
            ? { credit: 0, why: 'missing from the prediction' }
            : {
                credit: 0,
                why: `a different outcome: ${truncate(leaf.text)}`,
                contradiction: true,
              };
        if (predicted?.values.has(span.text))
          return { credit: ORDER_CREDIT, why: 'value present, at another path' };
        if (predicted === null && containsTokens(view, span.text))
          return { credit: ORDER_CREDIT, why: 'value present, but the prediction is not JSON' };
        return leaf === undefined
          ? { credit: 0, why: 'missing from the prediction' }
          : { credit: 0, why: `contradicted: ${truncate(leaf.text)}`, contradiction: true };
      case 'numeric-live':
        return judgeNumber(Number(span.text), leaf?.number ?? undefined);
      case 'runtime-metadata':
        if (predicted === null) {
          const verdict = judgeMetadataToken(span, fallbackMetadata, fallbackKinds);
          return {
            credit: verdict.credit * ORDER_CREDIT,
            why: `${verdict.why}; the prediction is not JSON`,
          };
        }
        if (leaf === undefined) return { credit: 0, why: 'no value at this path' };
        if (metadataSignature(span.kind, leaf.text) === metadataSignature(span.kind, span.text))
          return { credit: 1, why: `a ${span.kind} in the same format` };
        return wellFormed(span.kind, leaf.text)
          ? { credit: 0.5, why: `a ${span.kind} in another format` }
          : { credit: 0, why: `not a ${span.kind}` };
      case 'unseen-content':
        if (leaf === undefined) return { credit: 0, why: 'no value at this path' };
        if (collapsedShape(leaf.text) === collapsedShape(span.text))
          return { credit: 1, why: 'a value of the same form' };
        return { credit: 0.25, why: 'a value of another form' };
    }
  });
}

/** Letters and digits → 'x', other characters kept (ASCII fast path; the rare rest by regex). */
function maskAlphanumerics(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const ascii = code < 128;
    const alphanumeric = ascii
      ? (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
      : /[\p{L}\p{N}]/u.test(text[i] ?? '');
    out += alphanumeric ? 'x' : (text[i] ?? '');
  }
  return out;
}

function wellFormed(kind: string, text: string): boolean {
  if (kind === 'id') return text !== '' && !/\s/.test(text);
  const tokens = scanTokens(text);
  return tokens.length === 1 && tokens[0]?.kind === kind;
}

function containsTokens(view: PredictionView, text: string): boolean {
  const tokens = scanTokens(text);
  return tokens.length > 0 && tokens.every((token) => view.tokenPositions.has(token.text));
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
