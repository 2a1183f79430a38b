import type { Row } from './executor';

/**
 * Typed reads of driver rows. Both drivers already parse int4, float8, boolean, json and jsonb;
 * queries cast ids and bigint counts to text/int so the two drivers return the same JS types.
 */
function columnError(row: Row, key: string, expected: string): Error {
  return new Error(`column ${key}: expected ${expected}, got ${typeof row[key]}`);
}

export function textColumn(row: Row, key: string): string {
  const value = row[key];
  if (typeof value !== 'string') throw columnError(row, key, 'text');
  return value;
}

export function nullableTextColumn(row: Row, key: string): string | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw columnError(row, key, 'text or null');
  return value;
}

export function intColumn(row: Row, key: string): number {
  const value = row[key];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw columnError(row, key, 'integer');
  return value;
}

export function nullableIntColumn(row: Row, key: string): number | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  return intColumn(row, key);
}

export function nullableNumberColumn(row: Row, key: string): number | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number') throw columnError(row, key, 'number or null');
  return value;
}

export function booleanColumn(row: Row, key: string): boolean {
  const value = row[key];
  if (typeof value !== 'boolean') throw columnError(row, key, 'boolean');
  return value;
}

export function nullableBooleanColumn(row: Row, key: string): boolean | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  return booleanColumn(row, key);
}

/** A json/jsonb column, parsed by the driver; callers validate its shape with a zod schema. */
export function jsonColumn(row: Row, key: string): unknown {
  return row[key];
}

/** `to_char` format of timestamps as ISO 8601 UTC with milliseconds, as every store returns them. */
export const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The value of text column `key`, one of `values` (`what` names it in the error). */
export function oneOfColumn<T extends string>(
  row: Row,
  key: string,
  values: readonly T[],
  what: string,
): T {
  const text = textColumn(row, key);
  const found = values.find((candidate) => candidate === text);
  if (found === undefined) throw new Error(`unknown ${what} ${text}`);
  return found;
}
