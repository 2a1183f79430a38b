import type { JsonValue } from '@terrarium/schema';

/** A tool's refusal; the world prints it as `Error: <message>`, like the benchmarks do. */
export class ToolError extends Error {
  override name = 'ToolError';
}

export type JsonObject = { [key: string]: JsonValue };

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectAt(value: JsonValue | undefined, what: string): JsonObject {
  if (!isObject(value)) throw new ToolError(`${what} is not an object`);
  return value;
}

export function arrayAt(value: JsonValue | undefined, what: string): JsonValue[] {
  if (!Array.isArray(value)) throw new ToolError(`${what} is not a list`);
  return value;
}

export function stringArg(args: JsonObject, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw new ToolError(`missing argument ${name}`);
  return value;
}

export function numberAt(value: JsonValue | undefined, what: string): number {
  if (typeof value !== 'number') throw new ToolError(`${what} is not a number`);
  return value;
}

export function stringsArg(args: JsonObject, name: string): string[] {
  const value = args[name];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new ToolError(`missing argument ${name}`);
  return value.flatMap((item) => (typeof item === 'string' ? [item] : []));
}

/**
 * Python's `round(x, 2)`: the double nearest the decimal that `x`'s exact value rounds to.
 * `toFixed` rounds the exact binary value too; only exact ties (which a binary fraction with two
 * decimals almost never is) could differ from Python's round-half-even.
 */
export function round2(value: number): number {
  return Number(value.toFixed(2));
}

/** `str(float)` in Python: integral floats keep `.0`. */
export function pythonFloatString(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/** Python's `list.count`. */
export function countOf(list: readonly string[], item: string): number {
  return list.filter((entry) => entry === item).length;
}

/**
 * The benchmarks' `calculate` tool: `+ - * /`, parentheses, unary signs, decimals; evaluated by
 * this small recursive-descent parser (never `eval`), rounded like `round(float(x), 2)`.
 */
export function calculate(expression: string): string {
  if (![...expression].every((char) => '0123456789+-*/(). '.includes(char)))
    throw new ToolError('Invalid characters in expression');
  const tokens = expression.match(/\d+\.?\d*|\.\d+|[-+*/()]/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const expr = (): number => {
    let value = term();
    while (peek() === '+' || peek() === '-')
      value = tokens[at++] === '+' ? value + term() : value - term();
    return value;
  };
  const term = (): number => {
    let value = factor();
    while (peek() === '*' || peek() === '/') {
      const op = tokens[at++];
      const right = factor();
      if (op === '/' && right === 0) throw new ToolError('division by zero');
      value = op === '*' ? value * right : value / right;
    }
    return value;
  };
  const factor = (): number => {
    const token = tokens[at++];
    if (token === '-') return -factor();
    if (token === '+') return factor();
    if (token === '(') {
      const value = expr();
      if (tokens[at++] !== ')') throw new ToolError('unbalanced parentheses');
      return value;
    }
    if (token === undefined || !/^[\d.]/.test(token)) throw new ToolError('invalid syntax');
    return Number(token);
  };
  const value = expr();
  if (at !== tokens.length) throw new ToolError('invalid syntax');
  return pythonFloatString(round2(value));
}
