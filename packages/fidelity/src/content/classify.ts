import { parseJsonDocument } from '../text/json-value';
import { scoringText } from '../text/normalize';
import {
  METADATA_KINDS,
  scanTokens,
  type MetadataKind,
  type Token,
  type TokenKind,
} from '../text/tokens';
import type { HistoryTurn } from '../types';
import type { Span } from './classes';
import { HistoryIndex, indexHistory } from './history-index';
import { lexJson, type JsonLeafToken } from './json-lexer';
import { scalarValue } from './scalar';

/** The real observation cut into classed spans, ready to score any number of predictions against. */
export interface ClassifiedObservation {
  /** The observation after CRLF → LF and ANSI stripping (span offsets refer to it). */
  text: string;
  /** `scalar`: the whole observation is one short value (see scalar.ts), one deterministic span. */
  mode: 'json' | 'text' | 'empty' | 'scalar';
  spans: Span[];
  /** JSON mode: every `path:type` of the document, array indices collapsed. */
  typedPaths: Set<string>;
}

const METADATA_KIND_SET: ReadonlySet<string> = new Set(METADATA_KINDS);

export function isMetadataKind(kind: string): kind is MetadataKind {
  return METADATA_KIND_SET.has(kind);
}

// Keys whose values are runtime metadata when the history did not show them: ids, times, sizes.
const METADATA_KEY =
  /(?:^|[_-])(?:id|uuid|guid|pid|ppid|created|updated|modified|timestamp|time|date|at|hash|sha|checksum|etag|token|size|bytes|duration|elapsed|latency)$|[a-z](?:Id|At|Time|Date|Hash|Size)$/;

function metadataKindOfKey(key: string): MetadataKind | null {
  if (!METADATA_KEY.test(key)) return null;
  const lower = key.toLowerCase();
  if (/size|bytes/.test(lower)) return 'size';
  if (/duration|elapsed|latency/.test(lower)) return 'duration';
  if (/(?:^|_)p?pid$/.test(lower)) return 'pid';
  if (/time|date|created|updated|modified|(?:^|_)at$/.test(lower)) return 'timestamp';
  if (/hash|sha|checksum|etag/.test(lower)) return 'hex';
  return 'id';
}

/**
 * Splits the real observation into spans of content classes (see classes.ts):
 * - deterministic: the history (earlier actions and observations, and the current action) already
 *   shows it: echoed text, ids, file contents, error messages. Text tokens need to be distinctive
 *   (a digit, inner punctuation, ≥ 8 characters) or to appear with a neighbour; JSON values must
 *   appear whole, as a contiguous token sequence.
 * - runtime-metadata: timestamps, dates, times, UUIDs, hashes, sizes, durations, temp names, PIDs,
 *   and values of id/time/size keys in JSON, when the history did not show them.
 * - numeric-live: other numbers the history did not show (prices, counts).
 * - unseen-content: other words the history did not show (pre-existing content), judged by form.
 * - structure: JSON keys (with their value types) or, in text, each line's skeleton (tokens replaced
 *   by their kind, punctuation kept). Structure spans of text contain the content spans of the line.
 */
export function classifySpans(
  real: string,
  history: readonly HistoryTurn[] | HistoryIndex,
  currentAction = '',
): Span[] {
  return classifyObservation(real, history, currentAction).spans;
}

export function classifyObservation(
  real: string,
  history: readonly HistoryTurn[] | HistoryIndex,
  currentAction = '',
): ClassifiedObservation {
  // A prebuilt index (walking a trajectory) already holds the current action; see HistoryIndex.
  const index = history instanceof HistoryIndex ? history : indexHistory(history, currentAction);
  const text = scoringText(real);
  if (text.trim() === '') {
    return {
      text,
      mode: 'empty',
      spans: [
        { class: 'structure', start: 0, end: text.length, text, anchor: '$', kind: 'empty-output' },
      ],
      typedPaths: new Set(),
    };
  }
  const scalar = classifyScalar(text);
  if (scalar !== null) return scalar;
  if (parseJsonDocument(text) !== null) return classifyJson(text, index);
  return { text, mode: 'text', spans: classifyText(text, index), typedPaths: new Set() };
}

/**
 * A short scalar is deterministic as a whole, unless it is runtime metadata (a bare timestamp,
 * UUID, hash, PID…), which only has to keep its form.
 */
function classifyScalar(text: string): ClassifiedObservation | null {
  if (scalarValue(text) === null) return null;
  if (scanTokens(text).some((token) => isMetadataKind(token.kind))) return null;
  const trimmed = text.trim();
  const start = text.indexOf(trimmed);
  return {
    text,
    mode: 'scalar',
    spans: [
      {
        class: 'deterministic',
        start,
        end: start + trimmed.length,
        text: trimmed,
        anchor: '$',
        kind: 'scalar',
      },
    ],
    typedPaths: new Set(),
  };
}

function classifyJson(text: string, index: HistoryIndex): ClassifiedObservation {
  const { keys, leaves, typedPaths } = lexJson(text);
  const spans: Span[] = keys.map((key) => ({
    class: 'structure',
    start: key.start,
    end: key.end,
    text: text.slice(key.start, key.end),
    anchor: key.typedPath,
    kind: 'json-key',
  }));
  if (keys.length === 0) {
    const root = [...typedPaths].find((path) => path.startsWith('$:')) ?? '$:array';
    spans.push({
      class: 'structure',
      start: 0,
      end: text.length,
      text,
      anchor: root,
      kind: 'json-root',
    });
  }
  // One scan of the whole text; each leaf takes the tokens inside its quotes (no token crosses a quote).
  const tokens = scanTokens(text);
  let next = 0;
  for (const leaf of leaves) {
    while (next < tokens.length && (tokens[next]?.start ?? 0) < leaf.start) next++;
    const inside: Token[] = [];
    for (let k = next; k < tokens.length && (tokens[k]?.end ?? 0) <= leaf.end; k++) {
      const token = tokens[k];
      if (token !== undefined) inside.push(token);
    }
    const span = classifyLeaf(leaf, inside, index);
    if (span !== null) spans.push(span);
  }
  spans.sort((x, y) => x.start - y.start);
  return { text, mode: 'json', spans, typedPaths };
}

const keyKinds = new Map<string, MetadataKind | null>();

function cachedKeyKind(key: string): MetadataKind | null {
  let kind = keyKinds.get(key);
  if (kind === undefined) {
    kind = metadataKindOfKey(key);
    // Keys repeat across items; the cap keeps a stream of unique keys from growing it forever.
    if (keyKinds.size < 10_000) keyKinds.set(key, kind);
  }
  return kind;
}

function leafSpan(leaf: JsonLeafToken, cls: Span['class'], kind: string): Span {
  return {
    class: cls,
    start: leaf.start,
    end: leaf.end,
    text: leaf.value,
    anchor: leaf.path,
    kind,
  };
}

/**
 * Keys whose short one-word value says how the call came out (`"status": "cancelled"`). A judge
 * reads a different value there as a wrong outcome, not as unseen content of the same form.
 */
const OUTCOME_KEYS = new Set(['status', 'state', 'result', 'outcome', 'verdict']);
const OUTCOME_VALUE = /^[A-Za-z][A-Za-z_-]{0,31}$/;

/** Closed-set values: the prediction has the real one or contradicts it (no partial credit). */
export const OUTCOME_KINDS: ReadonlySet<string> = new Set(['boolean', 'outcome']);

function classifyLeaf(
  leaf: JsonLeafToken,
  tokens: readonly Token[],
  index: HistoryIndex,
): Span | null {
  // A boolean is an outcome (`"success": false`), whatever the history shows: a world model that
  // flips it got the call's result wrong. null carries nothing beyond its type, which the key's
  // typed path already checks.
  if (leaf.type === 'boolean') return leafSpan(leaf, 'deterministic', 'boolean');
  if (leaf.type === 'null') return null;
  const keyKind = cachedKeyKind(leaf.key);
  if (leaf.type === 'number') {
    const digits = leaf.value.startsWith('-') ? leaf.value.length - 1 : leaf.value.length;
    if (digits >= 2 && index.has(leaf.value)) return leafSpan(leaf, 'deterministic', 'number');
    if (keyKind !== null) return leafSpan(leaf, 'runtime-metadata', keyKind);
    return leafSpan(leaf, 'numeric-live', 'number');
  }
  const value = leaf.value;
  if (OUTCOME_KEYS.has(leaf.key.toLowerCase()) && OUTCOME_VALUE.test(value))
    return leafSpan(leaf, 'deterministic', 'outcome');
  if (
    value.length >= 3 &&
    (index.has(value) || index.hasSequence(tokens.map((token) => token.text)))
  )
    return leafSpan(leaf, 'deterministic', 'string');
  const only = tokens.length === 1 ? tokens[0] : undefined;
  if (
    only !== undefined &&
    only.end - only.start === leaf.end - leaf.start &&
    isMetadataKind(only.kind)
  )
    return leafSpan(leaf, 'runtime-metadata', only.kind);
  if (keyKind !== null && value !== '' && !/\s/.test(value))
    return leafSpan(leaf, 'runtime-metadata', keyKind);
  return leafSpan(leaf, 'unseen-content', 'string');
}

/** True when a token is unlikely to match the history by chance. */
function isDistinctive(token: Token): boolean {
  if (token.kind !== 'word') return true;
  const text = token.text;
  return text.length >= 8 || (/\d/.test(text) && /\p{L}/u.test(text)) || /.[_/.@#:'-]./.test(text);
}

function isInformative(token: Token): boolean {
  return token.text.length >= (token.kind === 'word' ? 3 : 2);
}

/** The part of a number's anchor naming what precedes it: the word, or the kind of token. */
export function anchorKey(previous: Token | undefined): string {
  if (previous === undefined) return '^';
  if (previous.kind === 'word') return previous.text;
  return previous.kind === 'number' ? '#' : `<${previous.kind}>`;
}

/** Each number's anchor (`word-before#occurrence`); other tokens get ''. */
export function numberAnchors(tokens: readonly Token[]): string[] {
  const seen = new Map<string, number>();
  return tokens.map((token, i) => {
    if (token.kind !== 'number') return '';
    const key = anchorKey(tokens[i - 1]);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return `${key}#${occurrence}`;
  });
}

function classOfToken(
  token: Token,
  previous: Token | undefined,
  next: Token | undefined,
  index: HistoryIndex,
) {
  if (
    isInformative(token) &&
    index.has(token.text) &&
    (isDistinctive(token) ||
      (previous !== undefined && index.hasBigram(previous.text, token.text)) ||
      (next !== undefined && index.hasBigram(token.text, next.text)))
  )
    return 'deterministic';
  if (isMetadataKind(token.kind)) return 'runtime-metadata';
  return token.kind === 'number' ? 'numeric-live' : 'unseen-content';
}

function classifyText(text: string, index: HistoryIndex): Span[] {
  const tokens = scanTokens(text);
  const anchors = numberAnchors(tokens);
  const occurrences = new Map<string, number>();
  const spans: Span[] = [];
  const skeletons = lineSkeletons(text, tokens);
  let line = 0;
  tokens.forEach((token, i) => {
    while (line < skeletons.length && (skeletons[line]?.end ?? 0) <= token.start) {
      const skeleton = skeletons[line];
      if (skeleton !== undefined && skeleton.skeleton !== '') spans.push(lineSpan(text, skeleton));
      line++;
    }
    const occurrence = occurrences.get(token.text) ?? 0;
    occurrences.set(token.text, occurrence + 1);
    const cls = classOfToken(token, tokens[i - 1], tokens[i + 1], index);
    spans.push({
      class: cls,
      start: token.start,
      end: token.end,
      text: token.text,
      // Numbers are placed by the word before them; other tokens by their own occurrence count.
      anchor:
        token.kind === 'number' && cls !== 'deterministic'
          ? (anchors[i] ?? '')
          : `${token.text}#${occurrence}`,
      kind: token.kind,
    });
  });
  for (; line < skeletons.length; line++) {
    const skeleton = skeletons[line];
    if (skeleton !== undefined && skeleton.skeleton !== '') spans.push(lineSpan(text, skeleton));
  }
  return spans;
}

interface LineSkeleton {
  start: number;
  end: number;
  skeleton: string;
}

function lineSpan(text: string, line: LineSkeleton): Span {
  return {
    class: 'structure',
    start: line.start,
    end: line.end,
    text: text.slice(line.start, line.end),
    anchor: line.skeleton,
    kind: 'line',
  };
}

const PLACEHOLDER: Record<TokenKind, string> = {
  word: 'w',
  number: '9',
  uuid: 'm',
  timestamp: 'm',
  date: 'm',
  time: 'm',
  duration: 'm',
  size: 'm',
  'temp-name': 'm',
  hex: 'm',
  pid: 'm',
  id: 'm',
};

/**
 * Each line's skeleton: tokens replaced by their kind (w word, 9 number, m metadata), punctuation
 * kept, whitespace runs collapsed. "[File: /a.py (6 lines total)]" → "[w: /w (9 w w)]".
 */
export function lineSkeletons(text: string, tokens: readonly Token[]): LineSkeleton[] {
  const lines: LineSkeleton[] = [];
  let tokenIndex = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let skeleton = '';
    let cursor = start;
    for (; tokenIndex < tokens.length; tokenIndex++) {
      const token = tokens[tokenIndex];
      if (token === undefined || token.start >= end) break;
      skeleton += framing(text.slice(cursor, token.start)) + PLACEHOLDER[token.kind];
      cursor = token.end;
    }
    skeleton = (skeleton + framing(text.slice(cursor, end))).trim();
    lines.push({ start, end, skeleton });
    start = end + 1;
  }
  return lines;
}

function framing(between: string): string {
  if (between === '') return '';
  return between.trim() === '' ? ' ' : between.replace(/\s+/g, ' ');
}

export type { HistoryTurn };
