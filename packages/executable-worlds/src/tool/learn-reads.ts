import type { JsonValue } from '@terrarium/schema';
import { pythonJsonDumps } from './python-json';

/** One recorded tool call and the text the environment answered. */
export interface RecordedToolCall {
  name: string;
  arguments: JsonValue;
  observation: string;
}

/** A key renamed between the database and the tool's output, at `path` (object keys from the record). */
export interface KeyRename {
  path: string[];
  to: string;
}

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
    if (storedKeys.length !== observedKeys.length) return null;
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
  return pythonJsonDumps(stored) === pythonJsonDumps(observed) ? [] : null;
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
  const out: { [key: string]: JsonValue } = {};
  for (const [key, field] of Object.entries(value)) {
    const at = [...path, key];
    const rename = renames.find((r) => r.path.join('\u0000') === at.join('\u0000'));
    out[rename?.to ?? key] = applyRenames(field, renames, at);
  }
  return out;
}

function sameRenames(a: KeyRename[], b: KeyRename[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function renderRead(
  database: ToolDatabase,
  mapping: Omit<ReadMapping, 'checked' | 'reproduced'>,
  args: JsonValue,
): string | null {
  if (!isObject(args)) return null;
  const key = args[mapping.argument];
  if (typeof key !== 'string') return null;
  const record = database[mapping.table]?.[key];
  if (record === undefined) return null;
  return pythonJsonDumps(applyRenames(record, mapping.renames));
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
  minShare = 0.5,
): ReadMapping[] {
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
        (call) => renderRead(database, candidate, call.arguments) === call.observation,
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
  database: ToolDatabase,
  mapping: ReadMapping,
  args: JsonValue,
): string | null {
  return renderRead(database, mapping, args);
}
