import type { KeyRename, RecordedToolCall, ReadMapping, ToolDatabase } from '../learn-reads';
import { learnReadMappings, learnShapes, toolDatabaseFrom } from '../learn-reads';
import { parseTomlSubset } from '../toml-subset';
import { TAU2_TELECOM_INITIALIZATION, TAU2_TELECOM_TOOLS } from './tau2-telecom';
import { floatKeysOf, parseOrderedJson, type JsonFormat } from '../python-json';
import { JsonValue, type Action } from '@terrarium/schema';
import { z } from 'zod';
import type { ToolHandlers } from '../tool-state';
import type { ToolWorldOptions } from '../tool-world';
import { TAU_AIRLINE_ALL } from './tau-airline';
import { TAU2_RETAIL_NOT_FOUND, TAU2_RETAIL_TOOLS } from './tau2-retail';

/** Everything a tool world of one benchmark domain needs, built from its files' text (no I/O). */
export interface ToolDomain {
  name: string;
  database: ToolDatabase;
  format: JsonFormat;
  /** Read tools learned from the recorded calls (checked against them). */
  mappings: ReadMapping[];
  handlers: ToolHandlers;
  notFound?: { readonly [table: string]: string };
  /** Printed record shapes per table, for tools no single argument → table mapping describes. */
  shapes?: ReadonlyMap<string, KeyRename[]>;
}

/** The options of `createToolWorld` / `measureToolReads` for a domain. */
export function domainOptions(
  domain: ToolDomain,
): Pick<ToolWorldOptions, 'mappings' | 'handlers' | 'format' | 'notFound' | 'shapes'> {
  return {
    mappings: domain.mappings,
    handlers: domain.handlers,
    format: domain.format,
    ...(domain.notFound === undefined ? {} : { notFound: domain.notFound }),
    ...(domain.shapes === undefined ? {} : { shapes: domain.shapes }),
  };
}

function tables(texts: { [table: string]: string }): {
  database: ToolDatabase;
  keyOrder: WeakMap<object, readonly string[]>;
} {
  const database: ToolDatabase = {};
  const keyOrder = new WeakMap<object, readonly string[]>();
  for (const [table, text] of Object.entries(texts)) {
    const parsed = parseOrderedJson(text);
    const rows = toolDatabaseFrom({ [table]: parsed.value })?.[table];
    if (rows === undefined) throw new Error(`${table}: not a table of records`);
    database[table] = rows;
    copyOrder(parsed.keyOrder, rows, keyOrder);
  }
  return { database, keyOrder };
}

// WeakMaps cannot be merged or listed: the orders found per file are kept by re-walking.
function copyOrder(
  from: WeakMap<object, readonly string[]>,
  node: unknown,
  to: WeakMap<object, readonly string[]>,
): void {
  if (typeof node !== 'object' || node === null) return;
  const order = from.get(node);
  if (order !== undefined) to.set(node, order);
  for (const child of Object.values(node)) copyOrder(from, child, to);
}

/**
 * tau-bench (v1) airline: users, reservations and flights tables (`envs/airline/data/*.json`), the
 * read tools learned from `recorded` (the flights table selects no record by one argument: the
 * searches are implemented), bookings, cancellations and updates applied to the state.
 */
export function tauAirlineDomain(
  files: { users: string; reservations: string; flights: string },
  recorded: readonly RecordedToolCall[],
): ToolDomain {
  const { database, keyOrder } = tables(files);
  const format: JsonFormat = {
    floatKeys: floatKeysOf([...Object.values(files), ...recorded.map((call) => call.observation)]),
    keyOrder,
  };
  const { flights: _flights, ...lookupTables } = database;
  return {
    name: 'tau-bench-airline',
    database,
    format,
    mappings: learnReadMappings(lookupTables, recorded, { format }),
    handlers: TAU_AIRLINE_ALL,
    notFound: TAU_AIRLINE_NOT_FOUND,
  };
}

/**
 * What tau-bench's airline read tools answer for an id the data does not have (`Error: user not
 * found`), so a policy meets the environment's own words, not a diagnostic of the world's.
 */
const TAU_AIRLINE_NOT_FOUND: Readonly<Record<string, string>> = {
  users: 'user not found',
  reservations: 'reservation not found',
};

/** tau2-bench retail: `domains/retail/db.json` (users, orders, products) and every retail tool. */
export function tau2RetailDomain(
  dbJson: string,
  recorded: readonly RecordedToolCall[],
): ToolDomain {
  const parsed = parseOrderedJson(dbJson);
  const database = toolDatabaseFrom(parsed.value);
  if (database === null) throw new Error('retail db.json: not a table of records');
  const format: JsonFormat = {
    floatKeys: floatKeysOf([dbJson, ...recorded.map((call) => call.observation)]),
    keyOrder: parsed.keyOrder,
  };
  return {
    name: 'tau2-retail',
    database,
    format,
    mappings: learnReadMappings(database, recorded, { format }),
    handlers: TAU2_RETAIL_TOOLS,
    notFound: TAU2_RETAIL_NOT_FOUND,
  };
}

const ISO_DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})$/;

/**
 * Datetimes as the telecom models print them: the TOML has `2025-01-15T10:30:00`, the pydantic
 * models hold datetimes, and the tools print `str(datetime)`, `2025-01-15 10:30:00`.
 */
function withSpacedDatetimes(value: JsonValue): JsonValue {
  if (typeof value === 'string') return value.replace(ISO_DATETIME, '$1 $2');
  if (Array.isArray(value)) return value.map(withSpacedDatetimes);
  if (typeof value !== 'object' || value === null) return value;
  const out: { [key: string]: JsonValue } = {};
  for (const [key, field] of Object.entries(value)) out[key] = withSpacedDatetimes(field);
  return out;
}

/** Tables of a telecom db.toml (`[[lines]]`…) keyed by each record's `<table>_id` (bills: `bill_id`). */
function telecomTables(value: { [key: string]: JsonValue }): ToolDatabase {
  const database: ToolDatabase = {};
  for (const [table, list] of Object.entries(value)) {
    if (!Array.isArray(list)) continue;
    const idField = `${table.replace(/s$/, '')}_id`;
    const rows: ToolDatabase[string] = {};
    for (const record of list) {
      if (typeof record !== 'object' || record === null || Array.isArray(record)) continue;
      const id = record[idField];
      if (typeof id === 'string') rows[id] = withSpacedDatetimes(record);
    }
    database[table] = rows;
  }
  return database;
}

/**
 * tau2-bench telecom, agent side: `domains/telecom/db.toml`, record shapes learned from the
 * recorded answers, lookups, bills, data usage, roaming and refuels. Each task of the runs starts
 * from this file changed by its own initialization actions (upstream code, not in the data): reads
 * after those changes do not reproduce, which the figures show.
 */
export function tau2TelecomDomain(
  dbToml: string,
  recorded: readonly RecordedToolCall[],
): ToolDomain {
  const parsed = parseTomlSubset(dbToml);
  const database = telecomTables(parsed.value);
  const floatKeys = floatKeysOf(recorded.map((call) => call.observation));
  for (const key of parsed.floatKeys) floatKeys.add(key);
  const format: JsonFormat = { floatKeys };
  return {
    name: 'tau2-telecom',
    database,
    format,
    mappings: [],
    // The init: functions are reachable only by name, for `tau2Initialization`'s actions.
    handlers: { ...TAU2_TELECOM_TOOLS, ...TAU2_TELECOM_INITIALIZATION },
    shapes: learnShapes(database, recorded),
  };
}

const InitializationActions = z.object({
  tasks: z.array(
    z.object({
      id: z.union([z.string(), z.number()]),
      initial_state: z
        .object({
          initialization_actions: z
            .array(
              z.object({
                env_type: z.string(),
                func_name: z.string(),
                arguments: z.record(z.string(), JsonValue).default({}),
              }),
            )
            .nullish(),
        })
        .nullish(),
    }),
  ),
});

/**
 * Per task id of a tau2 results file, the agent-side initialization actions as `init:` tool calls
 * (see TAU2_TELECOM_INITIALIZATION): they put a world in the task's starting state.
 */
export function tau2Initialization(results: unknown): Map<string, Action[]> {
  const parsed = InitializationActions.parse(results);
  const byTask = new Map<string, Action[]>();
  for (const task of parsed.tasks) {
    const actions = (task.initial_state?.initialization_actions ?? []).filter(
      (action) => action.env_type === 'assistant',
    );
    byTask.set(
      String(task.id),
      actions.map((action) => ({
        type: 'tool_call',
        name: `init:${action.func_name}`,
        arguments: action.arguments,
        callId: null,
      })),
    );
  }
  return byTask;
}
