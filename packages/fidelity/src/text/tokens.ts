/**
 * One scanner for every content-class decision: the real observation, the prediction and the history
 * are all cut the same way, so a token found in one can be looked up in the others.
 */

export const METADATA_KINDS = [
  'uuid',
  'timestamp',
  'date',
  'time',
  'duration',
  'size',
  'temp-name',
  'hex',
  'pid',
  'id',
] as const;
export type MetadataKind = (typeof METADATA_KINDS)[number];
export type TokenKind = 'word' | 'number' | MetadataKind;

export interface Token {
  text: string;
  start: number;
  end: number;
  kind: TokenKind;
}

const WORD_CHAR = '[\\p{L}\\p{N}_]';
// A metadata match must not be the head of a longer word ("2024-05-13abc", "abc1234-x").
const NOT_JOINED = `(?!${WORD_CHAR}|[.\\-/@#+']${WORD_CHAR})`;
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';

// Order matters: the first alternative that matches at a position wins.
const ALTERNATIVES: readonly [TokenKind, string][] = [
  ['uuid', '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'],
  [
    'timestamp',
    '\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?' +
      `|(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? +)?${MONTH} +\\d{1,2} +(?:\\d{1,2}:\\d{2}(?::\\d{2})?(?: +[A-Z]{3,4})?(?: +\\d{4})?|\\d{4})`,
  ],
  ['date', '\\d{4}-\\d{2}-\\d{2}|\\d{4}/\\d{2}/\\d{2}|\\d{1,2}/\\d{1,2}/\\d{4}'],
  ['time', '\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?'],
  [
    'duration',
    '\\d+m\\d+(?:\\.\\d+)?s|\\d+(?:\\.\\d+)?(?:ms|us|µs|ns|s|sec|secs|seconds|min|mins|minutes|hrs|hours)',
  ],
  ['size', '\\d+(?:\\.\\d+)?(?:[KMGTP](?:i?B)?|kB|k|bytes)'],
  ['temp-name', '/tmp/[\\w.\\-/]+|/var/folders/[\\w.\\-/]+|tmp[._]?[A-Za-z0-9]{6,}'],
  ['hex', '0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{7,}'],
];

const SCANNER = new RegExp(
  [
    ...ALTERNATIVES.map(([, pattern]) => `(${pattern})${NOT_JOINED}`),
    // Anything else: a run of letters/digits, joined by inner punctuation (paths, emails, ids, 1.5).
    // Not by ':', which separates more often than it joins ("1:import os", "Error:x", "host:8000").
    `(-?${WORD_CHAR}+(?:[.\\-/@#+']${WORD_CHAR}+)*)`,
  ].join('|'),
  'gu',
);

const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const PID_CUE = new Set(['pid', 'ppid', 'process', 'pgid']);

export function isNumberText(text: string): boolean {
  return NUMBER.test(text);
}

/** Cuts text into tokens; punctuation and whitespace between tokens are not tokens. */
export function scanTokens(text: string): Token[] {
  const tokens: Token[] = [];
  SCANNER.lastIndex = 0;
  let previous: Token | undefined;
  for (let match = SCANNER.exec(text); match !== null; match = SCANNER.exec(text)) {
    const matched = match[0];
    let kind: TokenKind = 'word';
    for (let group = 1; group <= ALTERNATIVES.length; group++) {
      if (match[group] !== undefined) {
        kind = ALTERNATIVES[group - 1]?.[0] ?? 'word';
        break;
      }
    }
    if (kind === 'word' && NUMBER.test(matched)) {
      kind = previous !== undefined && PID_CUE.has(previous.text.toLowerCase()) ? 'pid' : 'number';
    }
    previous = { text: matched, start: match.index, end: match.index + matched.length, kind };
    tokens.push(previous);
  }
  return tokens;
}

/**
 * The form of a token, for judging content by shape only: each character replaced by its class
 * (A upper, a lower, 9 digit, other characters kept) and runs collapsed: "Qandahar" → "Aa",
 * "HAT214" → "A9", "2024-05-13" → "9-9-9".
 */
export function collapsedShape(text: string): string {
  let shape = '';
  let last = '';
  for (const char of text) {
    const cls = characterClass(char);
    if (cls !== last) shape += cls;
    last = cls;
  }
  return shape;
}

/** The exact format of a token: every character replaced by its class, lengths kept ("99:99:99"). */
export function exactShape(text: string): string {
  let shape = '';
  for (const char of text) shape += characterClass(char);
  return shape;
}

function characterClass(char: string): string {
  if (char >= '0' && char <= '9') return '9';
  if (char >= 'a' && char <= 'z') return 'a';
  if (char >= 'A' && char <= 'Z') return 'A';
  if (/\p{L}/u.test(char)) return char.toLowerCase() === char ? 'a' : 'A';
  return char;
}
