import type { Action, JsonValue, Observation } from '@terrarium/schema';
import type { Database, SqlJsStatic } from 'sql.js';
import type { SqlQueryResult, SqlWorld, WorldSnapshot, WorldStepResult } from '../world';
import type { DumpDatabase, TableInfo } from './mysql-dump';
import { pythonRows, pythonString, pythonValue, type SqlValue } from './python-repr';

const SNAPSHOTS = new WeakMap<WorldSnapshot, { bytes: Uint8Array; steps: number }>();

const CLAUSES: [RegExp, string][] = [
  [/\bSELECT\b/gi, 'field list'],
  [/\bWHERE\b/gi, 'where clause'],
  [/\bON\b/gi, 'on clause'],
  [/\bGROUP\s+BY\b/gi, 'group statement'],
  [/\bHAVING\b/gi, 'having clause'],
  [/\bORDER\s+BY\b/gi, 'order clause'],
];

/**
 * Which clause MySQL names for an unknown column: the clause keyword closest before the column's
 * first mention (SQLite reports the column only).
 */
function clauseOf(sql: string, column: string): string {
  const escaped = column.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const at = new RegExp(`(^|[^\\w.])${escaped}\\b`, 'i').exec(sql);
  if (at === null) return 'field list';
  const position = at.index;
  let best = { position: -1, name: 'field list' };
  for (const [pattern, name] of CLAUSES) {
    for (const match of sql.matchAll(pattern)) {
      if (match.index < position && match.index > best.position)
        best = { position: match.index, name };
    }
  }
  return best.name;
}

/** A MySQL connector bytes value (`b'int'`): how DESCRIBE's type and default columns arrive. */
function bytes(text: string): string {
  return pythonValue(new TextEncoder().encode(text), false);
}

function observation(content: string): Observation {
  return { kind: 'text', content, callId: null };
}

/**
 * A SQL world: one Spider database in sql.js (wasm SQLite), answering as InterCode's MySQL
 * harness did — rows as Python reprs, `SHOW TABLES` / `DESCRIBE` from the dump's schema, MySQL's
 * wording for a missing table or column. Snapshots are the database file (`export()`), a few KB.
 */
class SqliteWorld implements SqlWorld {
  readonly kind = 'sql';
  private db: Database;
  private stepCount = 0;

  constructor(
    readonly id: string,
    private readonly sql: SqlJsStatic,
    private readonly database: DumpDatabase,
    private readonly initial: Uint8Array,
    from: Uint8Array = initial,
    steps = 0,
  ) {
    this.db = new sql.Database(from);
    this.stepCount = steps;
  }

  get steps(): number {
    return this.stepCount;
  }

  async reset(): Promise<Observation> {
    this.db.close();
    this.db = new this.sql.Database(this.initial);
    this.stepCount = 0;
    return observation('');
  }

  async step(action: Action): Promise<WorldStepResult> {
    this.stepCount++;
    if (action.type !== 'command') {
      return {
        observation: { kind: 'error', content: 'a SQL world takes SQL commands', callId: null },
        exitCode: 1,
        provenance: 'executed',
      };
    }
    const { content, ok } = this.answer(action.command);
    return { observation: observation(content), exitCode: ok ? 0 : 1, provenance: 'executed' };
  }

  private table(name: string): TableInfo | undefined {
    const wanted = name.replace(/`/g, '').toLowerCase();
    return this.database.tables.find((table) => table.name.toLowerCase() === wanted);
  }

  private answer(command: string): { content: string; ok: boolean } {
    const sql = command.trim().replace(/;\s*$/, '');
    if (/^SHOW\s+TABLES$/i.test(sql)) {
      // The recorded server folds table names to lower case (lower_case_table_names).
      const names = this.tables()
        .map((name) => name.toLowerCase())
        .toSorted();
      return { content: pythonRows(names.map((name) => [pythonString(name)])), ok: true };
    }
    const describe =
      /^(?:DESCRIBE|DESC|SHOW\s+COLUMNS\s+FROM|SHOW\s+FIELDS\s+FROM|EXPLAIN)\s+(`?[\w]+`?)$/i.exec(
        sql,
      );
    if (describe?.[1] !== undefined) {
      const table = this.table(describe[1]);
      if (table === undefined) {
        return {
          content: `Error executing query: Table '${this.schemaName()}.${describe[1].replace(/`/g, '').toLowerCase()}' doesn't exist`,
          ok: false,
        };
      }
      return {
        content: pythonRows(
          table.columns.map((column) => [
            pythonString(column.field),
            bytes(column.type),
            pythonString(column.nullable ? 'YES' : 'NO'),
            pythonString(column.key),
            column.defaultValue === null ? 'None' : bytes(column.defaultValue),
            pythonString(column.extra),
          ]),
        ),
        ok: true,
      };
    }
    const result = this.query(sql);
    if (result.error !== null)
      return {
        content: `Error executing query: ${this.mysqlMessage(result.error, sql)}`,
        ok: false,
      };
    return {
      content: pythonRows(result.rows.map((row) => row.map((value) => pythonValue(value, false)))),
      ok: true,
    };
  }

  /** SQLite's wording for the errors agents hit most, in MySQL's (what the recording shows). */
  private mysqlMessage(message: string, sql: string): string {
    const table = /no such table: (?:\w+\.)?(\S+)/.exec(message);
    if (table?.[1] !== undefined)
      return `Table '${this.schemaName()}.${table[1].toLowerCase()}' doesn't exist`;
    const column = /no such column: (\S+)/.exec(message);
    if (column?.[1] !== undefined)
      return `Unknown column '${column[1]}' in '${clauseOf(sql, column[1])}'`;
    const ambiguous = /ambiguous column name: (\S+)/.exec(message);
    if (ambiguous?.[1] !== undefined) return `Column '${ambiguous[1]}' in field list is ambiguous`;
    return message;
  }

  private schemaName(): string {
    return this.database.name.toLowerCase();
  }

  query(sql: string): SqlQueryResult {
    try {
      const results = this.db.exec(sql);
      const last = results.at(-1);
      if (last === undefined) return { columns: [], rows: [], error: null };
      const rows: (string | number | null)[][] = last.values.map((row) =>
        row.map((value: SqlValue) =>
          value instanceof Uint8Array ? new TextDecoder().decode(value) : value,
        ),
      );
      return { columns: last.columns, rows, error: null };
    } catch (error) {
      return {
        columns: [],
        rows: [],
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }

  tables(): string[] {
    const result = this.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    return result.rows.map((row) => String(row[0]));
  }

  snapshot(): WorldSnapshot {
    const snapshot: WorldSnapshot = Object.freeze({
      kind: 'sql',
      worldId: this.id,
      steps: this.stepCount,
    });
    SNAPSHOTS.set(snapshot, { bytes: this.db.export(), steps: this.stepCount });
    return snapshot;
  }

  restore(snapshot: WorldSnapshot): void {
    const saved = SNAPSHOTS.get(snapshot);
    if (saved === undefined || snapshot.worldId !== this.id) {
      throw new Error(`snapshot of world ${snapshot.worldId} cannot restore world ${this.id}`);
    }
    this.db.close();
    this.db = new this.sql.Database(saved.bytes);
    this.stepCount = saved.steps;
  }

  fork(): SqlWorld {
    return new SqliteWorld(
      this.id,
      this.sql,
      this.database,
      this.initial,
      this.db.export(),
      this.stepCount,
    );
  }

  state(): { [key: string]: JsonValue } {
    return {
      id: this.id,
      database: this.database.name,
      tables: this.tables(),
      steps: this.stepCount,
    };
  }
}

/**
 * Opens a SQL world on one database of a dump. `sql` is the caller's initialized sql.js (Node:
 * `await initSqlJs()`; browser: with `locateFile` for the wasm), so this package loads nothing.
 */
export function createSqlWorld(id: string, sql: SqlJsStatic, database: DumpDatabase): SqlWorld {
  const db = new sql.Database();
  try {
    for (const statement of database.statements) db.run(statement);
    return new SqliteWorld(id, sql, database, db.export());
  } finally {
    db.close();
  }
}
