import { isRecord } from './text/json-value';

/**
 * Controlled perturbations of a real observation, for measurement-validity checks: each returns the
 * perturbed text, or null when it does not apply to this observation (no timestamp to alter, one
 * line only…). They find their targets with their own patterns, independent of the content classifier
 * they are used to test.
 */
export const PERTURBATIONS = [
  'identity',
  'alter-timestamp',
  'change-runtime-id',
  'shuffle-lines',
  'drop-json-key',
  'change-deterministic-value',
  'other-step',
  'empty',
] as const;
export type Perturbation = (typeof PERTURBATIONS)[number];

/** How bad each perturbation is, as a researcher ranks them (0 = harmless). */
export const PERTURBATION_SEVERITY: Record<Perturbation, number> = {
  identity: 0,
  'alter-timestamp': 1,
  'change-runtime-id': 1,
  'shuffle-lines': 2,
  'drop-json-key': 2,
  'change-deterministic-value': 3,
  'other-step': 4,
  empty: 5,
};

export interface PerturbationInput {
  real: string;
  /** Earlier actions and observations plus the current action, concatenated. */
  historyText: string;
  /** The real observation of another step with the same tool, if there is one. */
  otherStep: string | null;
}

const TIMESTAMP =
  /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?|\d{4}-\d{2}-\d{2}|\b\d{1,2}:\d{2}:\d{2}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} +\d{1,2}:\d{2}\b/g;
const RUNTIME_ID =
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|(?<![\w.])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}(?![\w.+-])|(?<=\bpid[ :=]+)\d+|(?<="(?:\w+_)?id": ")[^"\s]+(?=")/gi;
const DETERMINISTIC_CANDIDATE = /[\p{L}\p{N}_][\p{L}\p{N}_.@#/-]{2,}[\p{L}\p{N}_]/gu;

export function perturb(kind: Perturbation, input: PerturbationInput): string | null {
  const { real, historyText, otherStep } = input;
  switch (kind) {
    case 'identity':
      return real;
    case 'alter-timestamp':
      return replaceFirstUnseen(real, TIMESTAMP, historyText, shiftLastDigit);
    case 'change-runtime-id':
      return replaceFirstUnseen(real, RUNTIME_ID, historyText, shiftCharacters);
    case 'shuffle-lines':
      return shuffleLines(real);
    case 'drop-json-key':
      return dropJsonKey(real);
    case 'change-deterministic-value':
      return changeSeenValue(real, historyText);
    case 'other-step':
      return otherStep !== null && otherStep !== real && otherStep.trim() !== '' ? otherStep : null;
    case 'empty':
      return real.trim() === '' ? null : '';
  }
}

/** Replaces every occurrence of the first match the history never showed. */
function replaceFirstUnseen(
  real: string,
  pattern: RegExp,
  historyText: string,
  change: (text: string) => string,
): string | null {
  for (const match of real.matchAll(pattern)) {
    const target = match[0];
    if (historyText.includes(target)) continue;
    const replacement = change(target);
    if (replacement !== target) return real.split(target).join(replacement);
  }
  return null;
}

/** Same format, another value: the last digit moves by 3 (a minute, a second, a day…). */
function shiftLastDigit(text: string): string {
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57)
      return text.slice(0, i) + String((code - 48 + 3) % 10) + text.slice(i + 1);
  }
  return text;
}

/**
 * Same shape, another value: digits +1 (mod 10), letters +1 within their case; a hexadecimal string
 * stays hexadecimal (a-f cycle among themselves).
 */
export function shiftCharacters(text: string): string {
  if (/^[0-9a-fA-F-]+$/.test(text) && /[0-9]/.test(text)) return shiftHex(text);
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (code >= 48 && code <= 57) out += String.fromCharCode(48 + ((code - 48 + 1) % 10));
    else if (code >= 97 && code <= 122) out += String.fromCharCode(97 + ((code - 97 + 1) % 26));
    else if (code >= 65 && code <= 90) out += String.fromCharCode(65 + ((code - 65 + 1) % 26));
    else out += char;
  }
  return out;
}

/** Digits stay digits and a-f letters stay a-f letters, so the form is exactly kept. */
function shiftHex(text: string): string {
  const letters = 'abcdef';
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    const at = letters.indexOf(char.toLowerCase());
    if (code >= 48 && code <= 57) out += String.fromCharCode(48 + ((code - 48 + 1) % 10));
    else if (at < 0) out += char;
    else {
      const next = letters[(at + 1) % 6] ?? char;
      out += char === char.toLowerCase() ? next : next.toUpperCase();
    }
  }
  return out;
}

/** A fixed pseudo-random order (seeded by the text), never the original one. */
function shuffleLines(real: string): string | null {
  const lines = real.split('\n');
  if (lines.filter((line) => line.trim() !== '').length < 2) return null;
  let seed = real.length * 2654435761;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const shuffled = lines.slice();
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const held = shuffled[i] ?? '';
    shuffled[i] = shuffled[j] ?? '';
    shuffled[j] = held;
  }
  let result = shuffled.join('\n');
  if (result === real) result = [...lines.slice(1), lines[0] ?? ''].join('\n');
  return result === real ? null : result;
}

/** Removes the last key of the top-level object (or of the first object in a top-level array). */
function dropJsonKey(real: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(real);
  } catch {
    return null;
  }
  const target = isRecord(value) ? value : Array.isArray(value) ? value.find(isRecord) : undefined;
  if (target === undefined) return null;
  const keys = Object.keys(target);
  const last = keys[keys.length - 1];
  if (last === undefined) return null;
  delete target[last];
  // Keep the source's layout (Python's json.dumps puts a space after ',' and ':').
  return real.includes('": ') ? pythonStyleJson(value) : JSON.stringify(value);
}

function pythonStyleJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item: unknown) => pythonStyleJson(item)).join(', ')}]`;
  if (isRecord(value))
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonStyleJson(item)}`)
      .join(', ')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * Changes the first value the history showed (an id, a name, a number echoed from an earlier step) to
 * another of the same shape, everywhere in the observation: a contradicted fact.
 */
function changeSeenValue(real: string, historyText: string): string | null {
  for (const match of real.matchAll(DETERMINISTIC_CANDIDATE)) {
    const target = match[0];
    const distinctive = /\d/.test(target) || target.length >= 6;
    const end = match.index + target.length;
    // A JSON key is structure, not a value.
    const isKey = real[match.index - 1] === '"' && real.startsWith('":', end);
    if (!distinctive || isKey || !historyText.includes(target)) continue;
    const replacement = shiftCharacters(target);
    return real.split(target).join(replacement);
  }
  return null;
}
