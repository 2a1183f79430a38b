import type { JsonValue } from '@terrarium/schema';
import { applyRenames, type KeyRename, type RecordLookup, type ToolDatabase } from './learn-reads';
import { pythonJsonDumps, type JsonFormat } from './python-json';

/**
 * What a tool implementation sees: the database under the writes applied so far. `put` writes
 * go to the calling world's overlay only (copy-on-write: the shared database is never mutated,
 * forks share every record they have not rewritten).
 */
export interface ToolState {
  /**
   * A record in the shape the tools print it (key renames and null defaults learned from the
   * recorded reads applied), so a write edits and stores what a later read prints.
   */
  get(table: string, key: string): JsonValue | undefined;
  /** JSON text as the benchmark's Python prints it (floats where the data has floats). */
  print(value: JsonValue): string;
  /** Keys of a table in the database's order, then keys added by writes. */
  keys(table: string): string[];
  /** Replaces (or adds) a record. Pass a fresh value: records read with `get` are shared. */
  put(table: string, key: string, value: JsonValue): void;
}

/** One implemented tool: reads leave the state as it was; writes `put` what they change. */
export interface ToolHandler {
  effect: 'read' | 'write';
  /** The tool's text answer, as the benchmark's own implementation prints it (errors as text). */
  run(state: ToolState, args: { [key: string]: JsonValue }): string;
}

export type ToolHandlers = { readonly [tool: string]: ToolHandler };

/** Written records, `table` → `key` → record; never mutated once a step has finished. */
export type Overlay = ReadonlyMap<string, ReadonlyMap<string, JsonValue>>;

export function overlayLookup(database: ToolDatabase, overlay: Overlay): RecordLookup {
  return (table, key) => overlay.get(table)?.get(key) ?? database[table]?.[key];
}

/** A state for one call; `written` is the overlay after the call (the same object when nothing was put). */
export function stateFor(
  database: ToolDatabase,
  overlay: Overlay,
  shapes: ReadonlyMap<string, KeyRename[]>,
  format: JsonFormat,
): { state: ToolState; written: () => Overlay } {
  let current = overlay;
  const lookup = overlayLookup(database, overlay);
  const state: ToolState = {
    get(table, key) {
      const record = current.get(table)?.get(key) ?? lookup(table, key);
      return record === undefined ? undefined : applyRenames(record, shapes.get(table) ?? []);
    },
    print: (value) => pythonJsonDumps(value, format),
    keys(table) {
      const base = Object.keys(database[table] ?? {});
      const added = [...(current.get(table)?.keys() ?? [])].filter(
        (key) => database[table]?.[key] === undefined,
      );
      return [...base, ...added];
    },
    put(table, key, value) {
      const next = new Map(current);
      next.set(table, new Map([...(current.get(table) ?? []), [key, value]]));
      current = next;
    },
  };
  return { state, written: () => current };
}

/** A deep copy of a JSON value, to edit a record read from the (shared) state. */
export function cloneJson(value: JsonValue): JsonValue {
  return structuredClone(value);
}
