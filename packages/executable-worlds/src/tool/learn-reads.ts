import type { JsonValue } from '@terrarium/schema';
import { pythonJsonDumps, type JsonFormat } from './python-json';

/** One recorded tool call and the text the environment answered. */
export interface RecordedToolCall {
  name: string;
  arguments: JsonValue;
  observation: string;
}

/**
 * How a tool's output differs in shape from the stored record, at `path` (object keys from the
 * record, `[]` for list items): a key renamed (`to`), or a key the tool adds as null (`insert`,
 * before the stored key `before`, or last): tau2's pydantic models print their unset optional
 * fields (`cancel_reason: null`…) that the database file leaves out.
 */
export type KeyRename =
  | { path: string[]; to: string }
  | { path: string[]; insert: string; before: string | null }
  /** The tool prints this object's keys in this order (absent ones as null). */
  | { path: string[]; order: string[] };

/**
 * What a read-only tool returns: `table[arguments[argument]]`, with `renames` applied. Learned
 * from recorded calls, kept only when it reproduces them.
 */
export interface ReadMapping {
  tool: string;
  argument: string;
  table: string;
  renames: KeyRename[];
  /** Recorded calls the mapping was checked on, and how many it reproduced exactly. */
  checked: number;
  reproduced: number;
}

/** The benchmark database: top-level tables of records keyed by id (users, reservations, …). */
export type ToolDatabase = { [table: string]: { [key: string]: JsonValue } };

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): JsonValue | undefined {
  try {
    const parsed: JsonValue = JSON.parse(text);
    return parsed;
  } catch {
    return undefined;
  }
}

/**
 * The key renames that turn `stored` into `observed`, or null when they differ otherwise. Same
 * values, same key order, only names changed: how a tool's output drifts from a later database
 * (the airline users' `address.state` was `province` when the trajectories were recorded).
 */
export function keyRenames(
  stored: JsonValue,
  observed: JsonValue,
  path: string[] = [],
): KeyRename[] | null {
  if (Array.isArray(stored) || Array.isArray(observed)) {
    if (!Array.isArray(stored) || !Array.isArray(observed) || stored.length !== observed.length)
      return null;
    const renames: KeyRename[] = [];
    for (const [i, item] of stored.entries()) {
      const inner = keyRenames(item, observed[i] ?? null, [...path, '[]']);
      if (inner === null) return null;
      renames.push(...inner);
    }
    return renames;
  }
  if (isObject(stored) && isObject(observed)) {
    const storedKeys = Object.keys(stored);
    const observedKeys = Object.keys(observed);
    const sameSet =
      storedKeys.every((key) => key in observed) &&
      observedKeys.every((key) => key in stored || observed[key] === null);
    const inOrder = observedKeys
      .filter((key) => key in stored)
      .every((key, i) => key === storedKeys[i]);
    if (sameSet && !inOrder) {
      // Same fields (plus nulls), another order: pydantic prints its field order, not the file's.
      const renames: KeyRename[] = [{ path, order: observedKeys }];
      for (const key of storedKeys) {
        const inner = keyRenames(stored[key] ?? null, observed[key] ?? null, [...path, key]);
        if (inner === null) return null;
        renames.push(...inner);
      }
      return renames;
    }
    if (storedKeys.length === observedKeys.length) {
      const renames: KeyRename[] = [];
      for (const [i, key] of storedKeys.entries()) {
        const to = observedKeys[i];
        if (to === undefined) return null;
        if (to !== key) renames.push({ path: [...path, key], to });
        const inner = keyRenames(stored[key] ?? null, observed[to] ?? null, [...path, key]);
        if (inner === null) return null;
        renames.push(...inner);
      }
      return renames;
    }
    if (storedKeys.length > observedKeys.length) return null;
    // More keys observed: the extra ones must be null fields the tool adds, at fixed places.
    const renames: KeyRename[] = [];
    let next = 0;
    for (const key of observedKeys) {
      if (storedKeys[next] === key) {
        const inner = keyRenames(stored[key] ?? null, observed[key] ?? null, [...path, key]);
        if (inner === null) return null;
        renames.push(...inner);
        next++;
      } else if (observed[key] === null && !(key in stored)) {
        renames.push({ path, insert: key, before: storedKeys[next] ?? null });
      } else return null;
    }
    return next === storedKeys.length ? renames : null;
  }
  return JSON.stringify(stored) === JSON.stringify(observed) ? [] : null;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/** `value` with `renames` applied (paths as `keyRenames` reports them). */
export function applyRenames(
  value: JsonValue,
  renames: KeyRename[],
  path: string[] = [],
): JsonValue {
  if (renames.length === 0) return value;
  if (Array.isArray(value))
    return value.map((item) => applyRenames(item, renames, [...path, '[]']));
  if (!isObject(value)) return value;
  const order = renames.find((r) => 'order' in r && samePath(r.path, path));
  if (order !== undefined && 'order' in order) {
    const out: { [key: string]: JsonValue } = {};
    for (const key of order.order)
      out[key] = applyRenames(value[key] ?? null, renames, [...path, key]);
    for (const [key, field] of Object.entries(value))
      if (!(key in out)) out[key] = applyRenames(field, renames, [...path, key]);
    return out;
  }
  const inserts = renames.flatMap((r) => ('insert' in r && samePath(r.path, path) ? [r] : []));
  const out: { [key: string]: JsonValue } = {};
  // A key the record already has (a write set it) is never inserted again as null.
  const missing = inserts.filter((insert) => !(insert.insert in value));
  for (const [key, field] of Object.entries(value)) {
    for (const insert of missing) if (insert.before === key) out[insert.insert] = null;
    const at = [...path, key];
    const rename = renames.find((r) => 'to' in r && samePath(r.path, at));
    out[rename !== undefined && 'to' in rename ? rename.to : key] = applyRenames(
      field,
      renames,
      at,
    );
  }
  for (const insert of missing) if (insert.before === null) out[insert.insert] = null;
  return out;
}

function sameRenames(a: KeyRename[], b: KeyRename[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Reads one record of the current state (the database under any writes applied since). */
export type RecordLookup = (table: string, key: string) => JsonValue | undefined;

export function databaseLookup(database: ToolDatabase): RecordLookup {
  return (table, key) => database[table]?.[key];
}

function renderRead(
  lookup: RecordLookup,
  mapping: Omit<ReadMapping, 'checked' | 'reproduced'>,
  args: JsonValue,
  format: JsonFormat,
): string | null {
  if (!isObject(args)) return null;
  const key = args[mapping.argument];
  if (typeof key !== 'string') return null;
  const record = lookup(mapping.table, key);
  if (record === undefined) return null;
  return pythonJsonDumps(applyRenames(record, mapping.renames), format);
}

export interface LearnOptions {
  /** Share of a tool's recorded calls a mapping must reproduce (default 0.5). */
  minShare?: number;
  /** Floats and key order of the database (see `JsonFormat`). */
  format?: JsonFormat;
}

/**
 * Learn, per tool, which argument selects which table's record: for each recorded call, every
 * string argument that is a key of some table is a candidate; its renames come from the first
 * call that fits up to key names. A candidate is kept when it reproduces at least `minShare` of
 * the tool's recorded calls exactly (the rest were answered after writes the log does not carry);
 * the best one per tool wins. Calls must be answered from the same initial state as `database`.
 */
export function learnReadMappings(
  database: ToolDatabase,
  calls: readonly RecordedToolCall[],
  options: LearnOptions = {},
): ReadMapping[] {
  const minShare = options.minShare ?? 0.5;
  const format = options.format ?? {};
  const lookup = databaseLookup(database);
  const byTool = new Map<string, RecordedToolCall[]>();
  for (const call of calls) byTool.set(call.name, [...(byTool.get(call.name) ?? []), call]);
  const mappings: ReadMapping[] = [];
  for (const [tool, toolCalls] of [...byTool].toSorted(([a], [b]) => a.localeCompare(b))) {
    const candidates: Omit<ReadMapping, 'checked' | 'reproduced'>[] = [];
    for (const call of toolCalls) {
      const observed = parseJson(call.observation);
      if (!isObject(call.arguments) || observed === undefined) continue;
      for (const [argument, key] of Object.entries(call.arguments)) {
        if (typeof key !== 'string') continue;
        for (const [table, rows] of Object.entries(database)) {
          const record = rows[key];
          if (record === undefined) continue;
          const renames = keyRenames(record, observed);
          if (renames === null) continue;
          const known = candidates.some(
            (c) => c.argument === argument && c.table === table && sameRenames(c.renames, renames),
          );
          if (!known) candidates.push({ tool, argument, table, renames });
        }
      }
    }
    let best: ReadMapping | null = null;
    for (const candidate of candidates) {
      const reproduced = toolCalls.filter(
        (call) => renderRead(lookup, candidate, call.arguments, format) === call.observation,
      ).length;
      if (best === null || reproduced > best.reproduced)
        best = { ...candidate, checked: toolCalls.length, reproduced };
    }
    if (best !== null && best.reproduced >= minShare * toolCalls.length) mappings.push(best);
  }
  return mappings;
}

/** Execute a read through its mapping; null when the argument is missing or no record has that key. */
export function executeRead(
  lookup: RecordLookup,
  mapping: ReadMapping,
  args: JsonValue,
  format: JsonFormat = {},
): string | null {
  return renderRead(lookup, mapping, args, format);
}

/** A parsed database file as tables of records (top level: table → key → record), or null. */
export function toolDatabaseFrom(value: JsonValue): ToolDatabase | null {
  if (!isObject(value)) return null;
  const database: ToolDatabase = {};
  for (const [table, rows] of Object.entries(value)) {
    if (!isObject(rows)) return null;
    database[table] = rows;
  }
  return database;
}

/** Objects in a tool's answer that may be records: itself, list items, and object fields. */
function recordCandidates(value: JsonValue): { [key: string]: JsonValue }[] {
  if (Array.isArray(value)) return value.flatMap(recordCandidates);
  if (!isObject(value)) return [];
  return [value, ...Object.values(value).flatMap((field) => (isObject(field) ? [field] : []))];
}

/**
 * The printed shape of each table's records (renames, null fields, key order), learned from any
 * recorded answer that holds a record: an object one of whose string fields is that record's key
 * and that matches it up to shape. For tools whose answers are records of several tables
 * (`get_details_by_id`) or found by a search (`get_customer_by_phone`), where no single
 * argument → table mapping exists.
 */
export function learnShapes(
  database: ToolDatabase,
  calls: readonly RecordedToolCall[],
): Map<string, KeyRename[]> {
  const shapes = new Map<string, KeyRename[]>();
  for (const call of calls) {
    const observed = parseJson(call.observation);
    if (observed === undefined) continue;
    for (const candidate of recordCandidates(observed)) {
      for (const field of Object.values(candidate)) {
        if (typeof field !== 'string') continue;
        for (const [table, rows] of Object.entries(database)) {
          const record = rows[field];
          if (shapes.has(table) || record === undefined) continue;
          const shape = keyRenames(record, candidate);
          if (shape === null) continue;
          // Top-level null fields as a full key order: records that have some of them (a line
          // already suspended) then print them in the model's place too.
          const top = shape.filter((r) => r.path.length === 0 && 'insert' in r);
          shapes.set(
            table,
            top.length === 0
              ? shape
              : [
                  { path: [], order: Object.keys(candidate) },
                  ...shape.filter((r) => !top.includes(r)),
                ],
          );
        }
      }
    }
  }
  return shapes;
}
