import { JUDGE_DIMENSIONS, type JudgeDimension } from '@terrarium/schema';
import { answerObjects, isObject, stripThinking } from './loose-json';

export type JudgeRawScores = Record<JudgeDimension, number>;

export type JudgeParse =
  | {
      ok: true;
      /** The judge's 1-5 values, clamped. */
      raw: JudgeRawScores;
      /** (raw − 1) / 4, in [0, 1]. */
      scores: JudgeRawScores;
      /** Mean of the five scores, in [0, 1]. */
      overall: number;
      reasoning: string;
    }
  | { ok: false; error: string };

/** Key spellings judges use, after lower-casing and dropping everything but letters. */
const DIMENSION_ALIASES: Record<JudgeDimension, readonly string[]> = {
  format: ['format', 'formatting', 'form', 'formatcorrectness', 'formataccuracy'],
  factuality: [
    'factuality',
    'factual',
    'factualaccuracy',
    'factualcorrectness',
    'facts',
    'accuracy',
    'correctness',
  ],
  consistency: ['consistency', 'consistent', 'coherence', 'historyconsistency', 'stateconsistency'],
  realism: ['realism', 'realistic', 'plausibility', 'plausible', 'naturalness'],
  quality: ['quality', 'overallquality', 'usefulness', 'utility', 'helpfulness'],
};

const DIMENSION_OF_KEY = new Map<string, JudgeDimension>();
for (const dimension of JUDGE_DIMENSIONS) {
  for (const alias of DIMENSION_ALIASES[dimension]) DIMENSION_OF_KEY.set(alias, dimension);
}

const REASONING_KEYS = new Set([
  'reasoning',
  'reason',
  'rationale',
  'explanation',
  'analysis',
  'justification',
  'comment',
  'comments',
  'thoughts',
]);

const SCORE_CONTAINERS = new Set([
  'scores',
  'score',
  'ratings',
  'rating',
  'evaluation',
  'dimensions',
  'result',
]);

function normalizeKey(key: string): string {
  return key
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/(?:score|rating)$/, '');
}

function dimensionOf(key: string): JudgeDimension | null {
  const normalized = normalizeKey(key);
  return (
    DIMENSION_OF_KEY.get(normalized) ??
    DIMENSION_OF_KEY.get(key.toLowerCase().replace(/[^a-z]/g, '')) ??
    null
  );
}

/** A score from a number, a numeric string ("4", "4/5", "4 out of 5") or `{score: 4}`. */
function numberOf(value: unknown, depth = 0): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') {
    const match = /-?\d+(?:\.\d+)?/.exec(value);
    return match === null ? null : Number(match[0]);
  }
  if (isObject(value) && depth === 0) {
    for (const key of ['score', 'value', 'rating', 'points']) {
      if (key in value) return numberOf(value[key], 1);
    }
  }
  return null;
}

function clampScore(value: number): number {
  return Math.min(5, Math.max(1, value));
}

interface Found {
  raw: Partial<JudgeRawScores>;
  reasoning: string;
}

function collect(object: Record<string, unknown>, found: Found, depth: number): void {
  for (const [key, value] of Object.entries(object)) {
    const dimension = dimensionOf(key);
    if (dimension !== null && found.raw[dimension] === undefined) {
      const number = numberOf(value);
      if (number !== null) found.raw[dimension] = clampScore(number);
      if (isObject(value) && found.reasoning === '') {
        for (const [innerKey, inner] of Object.entries(value)) {
          if (REASONING_KEYS.has(innerKey.toLowerCase()) && typeof inner === 'string') {
            found.reasoning = inner;
          }
        }
      }
      continue;
    }
    if (
      REASONING_KEYS.has(key.toLowerCase()) &&
      typeof value === 'string' &&
      found.reasoning === ''
    ) {
      found.reasoning = value;
      continue;
    }
    if (depth < 2 && isObject(value) && (SCORE_CONTAINERS.has(key.toLowerCase()) || depth === 0)) {
      collect(value, found, depth + 1);
    }
  }
}

function missingOf(raw: Partial<JudgeRawScores>): JudgeDimension[] {
  return JUDGE_DIMENSIONS.filter((dimension) => raw[dimension] === undefined);
}

function complete(raw: Partial<JudgeRawScores>): JudgeRawScores | null {
  const { format, factuality, consistency, realism, quality } = raw;
  if (
    format === undefined ||
    factuality === undefined ||
    consistency === undefined ||
    realism === undefined ||
    quality === undefined
  ) {
    return null;
  }
  return { format, factuality, consistency, realism, quality };
}

/** Last resort: `Format: 4/5` lines in prose. */
function scoresInProse(text: string): Partial<JudgeRawScores> {
  const raw: Partial<JudgeRawScores> = {};
  for (const dimension of JUDGE_DIMENSIONS) {
    const names = DIMENSION_ALIASES[dimension].join('|');
    const pattern = new RegExp(`\\b(?:${names})\\b[^\\d\\n]{0,24}?(-?\\d+(?:\\.\\d+)?)`, 'gi');
    let last: number | null = null;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      last = Number(match[1]);
    }
    if (last !== null && Number.isFinite(last)) raw[dimension] = clampScore(last);
  }
  return raw;
}

function success(raw: JudgeRawScores, reasoning: string): JudgeParse {
  const scores: JudgeRawScores = {
    format: (raw.format - 1) / 4,
    factuality: (raw.factuality - 1) / 4,
    consistency: (raw.consistency - 1) / 4,
    realism: (raw.realism - 1) / 4,
    quality: (raw.quality - 1) / 4,
  };
  let sum = 0;
  for (const dimension of JUDGE_DIMENSIONS) sum += scores[dimension];
  return { ok: true, raw, scores, overall: sum / JUDGE_DIMENSIONS.length, reasoning };
}

/**
 * Reads a judge's answer: drops `<think>` blocks, prefers JSON in code fences, takes the outermost
 * JSON objects (last first), repairs loose JSON, maps dimension names case-insensitively with
 * aliases (`Factual_Accuracy`, `format_score`…), clamps values to 1-5, and as a last resort reads
 * `Format: 4` lines. Never throws.
 */
export function parseJudgeAnswer(text: string): JudgeParse {
  try {
    if (text.trim() === '') return { ok: false, error: 'empty answer' };
    let best: Found | null = null;
    for (const object of answerObjects(text)) {
      const found: Found = { raw: {}, reasoning: '' };
      collect(object, found, 0);
      const raw = complete(found.raw);
      if (raw !== null) return success(raw, found.reasoning);
      if (best === null || missingOf(found.raw).length < missingOf(best.raw).length) best = found;
    }
    const prose = stripThinking(text);
    const fromProse = complete(scoresInProse(prose));
    if (fromProse !== null) return success(fromProse, prose.trim().slice(0, 2000));
    if (best !== null && missingOf(best.raw).length < JUDGE_DIMENSIONS.length) {
      return { ok: false, error: `missing dimension(s): ${missingOf(best.raw).join(', ')}` };
    }
    return { ok: false, error: 'no JSON object with scores found' };
  } catch (error) {
    return {
      ok: false,
      error: `unreadable answer: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

export type Choice = 'A' | 'B';

function letterOf(value: unknown): Choice | 'tie' | null {
  if (typeof value !== 'string') return null;
  const normalized = value
    .trim()
    .toUpperCase()
    .replace(/^(?:RESPONSE|OUTPUT|OPTION|SIMULATED RESPONSE)\s*/, '')
    .replace(/[^A-Z]/g, '');
  if (normalized === 'A' || normalized === 'B') return normalized;
  if (['TIE', 'EQUAL', 'SAME', 'BOTH', 'NEITHER', 'DRAW'].includes(normalized)) return 'tie';
  return null;
}

function choiceFromObjects(text: string, keys: readonly string[]): Choice | 'tie' | null {
  for (const object of answerObjects(text)) {
    for (const [key, value] of Object.entries(object)) {
      if (!keys.includes(key.toLowerCase())) continue;
      const letter = letterOf(value);
      if (letter !== null) return letter;
    }
  }
  return null;
}

/** Letters that prose patterns name; a single distinct one is the answer. */
function choiceFromProse(text: string, patterns: readonly RegExp[]): Choice | null {
  const letters = new Set<Choice>();
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const letter = letterOf(match[1]);
      if (letter === 'A' || letter === 'B') letters.add(letter);
    }
  }
  if (letters.size !== 1) return null;
  const [only] = letters;
  return only ?? null;
}

const LETTER = String.raw`\**\(?([AB])\)?\**`;

/** Turing mode: which response the judge says is real; null when it does not say, or says both. */
export function parseTuringAnswer(text: string): Choice | null {
  try {
    const fromJson = choiceFromObjects(text, [
      'real',
      'answer',
      'choice',
      'verdict',
      'real_response',
    ]);
    if (fromJson === 'A' || fromJson === 'B') return fromJson;
    const prose = stripThinking(text);
    return choiceFromProse(prose, [
      new RegExp(
        String.raw`(?:response|output|option)?\s*${LETTER}\s+is\s+(?:the\s+)?(?:real|genuine|authentic)`,
        'gi',
      ),
      new RegExp(
        String.raw`(?:real|genuine|authentic)(?:\s+one|\s+output|\s+response)?\s+is\s+(?:response\s+|output\s+)?${LETTER}(?![A-Za-z])`,
        'gi',
      ),
      new RegExp(
        String.raw`(?:answer|verdict|real)\s*[:=]\s*(?:response\s+)?${LETTER}(?![A-Za-z])`,
        'gi',
      ),
      new RegExp(String.raw`^\s*${LETTER}\s*\.?\s*$`, 'g'),
    ]);
  } catch {
    return null;
  }
}

/** Pairwise mode: which simulated response the judge finds closer to the real one. */
export function parsePairwiseAnswer(text: string): Choice | 'tie' | null {
  try {
    const fromJson = choiceFromObjects(text, [
      'closer',
      'better',
      'winner',
      'choice',
      'answer',
      'verdict',
    ]);
    if (fromJson !== null) return fromJson;
    const prose = stripThinking(text);
    if (
      /\b(?:it'?s a tie|tie|equally close)\b/i.test(prose) &&
      !/\b[AB] is closer\b/i.test(prose)
    ) {
      return 'tie';
    }
    return choiceFromProse(prose, [
      new RegExp(
        String.raw`(?:response|output|option)?\s*${LETTER}\s+is\s+(?:much\s+|slightly\s+)?(?:closer|better)`,
        'gi',
      ),
      new RegExp(
        String.raw`(?:closer|better|winner)\s*(?:one\s+)?(?:is|[:=])\s*(?:response\s+)?${LETTER}(?![A-Za-z])`,
        'gi',
      ),
      new RegExp(String.raw`^\s*${LETTER}\s*\.?\s*$`, 'g'),
    ]);
  } catch {
    return null;
  }
}
