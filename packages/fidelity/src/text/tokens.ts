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

// Metadata alternatives tried only where one can start (a digit, a month or day name, tmp, /tmp/,
// a hex letter), anchored at that position: most tokens are plain words and never pay for them.
const METADATA_AT = new RegExp(
  ALTERNATIVES.map(([, pattern]) => `(${pattern})${NOT_JOINED}`).join('|'),
  'uy',
);
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const PID_CUE = new Set(['pid', 'ppid', 'process', 'pgid']);
const DATE_WORDS = new Set([
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
  'Mon',
  'Tue',
  'Wed',
  'Thu',
  'Fri',
  'Sat',
  'Sun',
]);
const OTHER_WORD_CHAR = /[\p{L}\p{N}]/u;

export function isNumberText(text: string): boolean {
  return NUMBER.test(text);
}

function isWordCode(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 128)
    return (
      (code >= 48 && code <= 57) ||
      (code >= 65 && code <= 90) ||
      (code >= 97 && code <= 122) ||
      code === 95
    );
  // Surrogate pairs and other non-ASCII letters: rare, so a regex is fine.
  return OTHER_WORD_CHAR.test(text.slice(i, i + 2));
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isHexLetterCode(code: number): boolean {
  return (code >= 97 && code <= 102) || (code >= 65 && code <= 70);
}

// Inner punctuation that joins two runs of word characters into one token: . - / @ # + '
function isJoinerCode(code: number): boolean {
  return (
    code === 46 ||
    code === 45 ||
    code === 47 ||
    code === 64 ||
    code === 35 ||
    code === 43 ||
    code === 39
  );
}

/** Can a metadata token start at `i` (the start of a run, or a '/')? */
function mayStartMetadata(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (isDigitCode(code) || isHexLetterCode(code)) return true;
  if (code === 47) return text.startsWith('/tmp/', i) || text.startsWith('/var/folders/', i);
  if (code === 116) return text.startsWith('tmp', i);
  return DATE_WORDS.has(text.slice(i, i + 3)) && text.charCodeAt(i + 3) === 32;
}

/** Cuts text into tokens; punctuation and whitespace between tokens are not tokens. */
export function scanTokens(text: string): Token[] {
  const tokens: Token[] = [];
  let previous: Token | undefined;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const code = text.charCodeAt(i);
    const runStart = isWordCode(text, i);
    const negative =
      code === 45 &&
      i + 1 < n &&
      isDigitCode(text.charCodeAt(i + 1)) &&
      (i === 0 || !isWordCode(text, i - 1));
    if (!runStart && !negative && code !== 47) {
      i++;
      continue;
    }
    if ((runStart || code === 47) && mayStartMetadata(text, i)) {
      METADATA_AT.lastIndex = i;
      const match = METADATA_AT.exec(text);
      if (match !== null) {
        let kind: TokenKind = 'word';
        for (let group = 1; group <= ALTERNATIVES.length; group++) {
          if (match[group] !== undefined) {
            kind = ALTERNATIVES[group - 1]?.[0] ?? 'word';
            break;
          }
        }
        previous = { text: match[0], start: i, end: i + match[0].length, kind };
        tokens.push(previous);
        i = previous.end;
        continue;
      }
    }
    if (!runStart && !negative) {
      i++;
      continue;
    }
    // A run of letters/digits, joined by inner punctuation (paths, emails, ids, 1.5), not by ':'
    // which separates more often than it joins ("1:import os", "Error:x", "host:8000").
    let end = negative ? i + 1 : i;
    for (;;) {
      while (end < n && isWordCode(text, end)) end++;
      if (end + 1 < n && isJoinerCode(text.charCodeAt(end)) && isWordCode(text, end + 1)) end++;
      else break;
    }
    const word = text.slice(i, end);
    let kind: TokenKind = 'word';
    if ((negative || isDigitCode(code)) && NUMBER.test(word))
      kind = previous !== undefined && PID_CUE.has(previous.text.toLowerCase()) ? 'pid' : 'number';
    previous = { text: word, start: i, end, kind };
    tokens.push(previous);
    i = end;
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
