import type { Action, JsonValue, Observation, ToolSchema, Trajectory } from '@terrarium/schema';
import type { Transition, WorldModel } from '@terrarium/worlds';
import { fallbackAnswer, unansweredText } from '../fallback-answer';
import type { World, WorldSnapshot, WorldStepResult } from '../world';
import {
  executeRead,
  learnReadMappings,
  type KeyRename,
  type ReadMapping,
  type RecordedToolCall,
  type ToolDatabase,
} from './learn-reads';
import type { JsonFormat } from './python-json';
import { overlayLookup, stateFor, type Overlay, type ToolHandlers } from './tool-state';

export interface ToolWorld extends World {
  readonly kind: 'tool';
  fork(): ToolWorld;
  /** The learned read-only tools (tool → argument → table). */
  readMappings(): ReadMapping[];
  /** Records an unmodelled write may have changed (`table/key`), sorted: reads of them fall back. */
  staleRecords(): string[];
  /** A record as it is now (after applied writes), for verifiers. */
  record(table: string, key: string): JsonValue | undefined;
  /** The tools an agent is offered (OpenAI function schemas), as given to the world. */
  tools(): ToolSchema[];
}

export interface ToolWorldOptions {
  /** Recorded calls answered verbatim when called again identically (default none). */
  recorded?: readonly RecordedToolCall[];
  /** Read mappings; default: learned from `recorded`, or from `learnFrom` when given. */
  mappings?: readonly ReadMapping[];
  /** Recorded calls to learn mappings from (e.g. a whole dataset) without answering them verbatim. */
  learnFrom?: readonly RecordedToolCall[];
  /** Answers what neither the recording nor the state can; default: an error observation. */
  fallback?: WorldModel;
  /** Source trajectory, for the world model's context. */
  trajectory?: Trajectory;
  /**
   * Tools implemented over the state (searches, writes such as a booking or a cancellation):
   * they run before the recording is consulted, so a write always changes what later reads return.
   */
  handlers?: ToolHandlers;
  /** Floats and key order of the database (see `JsonFormat`). */
  format?: JsonFormat;
  /**
   * What a learned read answers for a key the state does not have, per table (tau2 prints
   * `Error: Order not found`); without it such a read falls back.
   */
  notFound?: { readonly [table: string]: string };
  /** The tools an agent is offered (e.g. `inferToolSchemas` of the recordings). */
  tools?: readonly ToolSchema[];
  /** Printed shapes of records per table (see `learnShapes`); learned read mappings fill the rest. */
  shapes?: ReadonlyMap<string, KeyRename[]>;
}

interface Mutable {
  steps: number;
  /** Records written by implemented tools, over the shared database. */
  overlay: Overlay;
  stale: ReadonlySet<string>;
  recordedUse: ReadonlyMap<string, number>;
  history: readonly Transition[];
}

const SNAPSHOTS = new WeakMap<WorldSnapshot, Mutable>();

function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).toSorted();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function callKey(name: string, args: JsonValue): string {
  return `${name}\u0000${canonical(args)}`;
}

function stringsIn(value: JsonValue): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

/** The tool calls of a trajectory that have a recorded answer, in order. */
export function recordedToolCalls(trajectory: Trajectory): RecordedToolCall[] {
  return trajectory.steps.flatMap((step) =>
    step.action.type === 'tool_call' && step.observation !== null
      ? [
          {
            name: step.action.name,
            arguments: step.action.arguments,
            observation: step.observation.content,
          },
        ]
      : [],
  );
}

function initial(): Mutable {
  return { steps: 0, overlay: new Map(), stale: new Set(), recordedUse: new Map(), history: [] };
}

function isRecord(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class StateToolWorld implements ToolWorld {
  readonly kind = 'tool';
  private now: Mutable;
  /** Per table, the output shape learned by its read tool (what handlers read and write). */
  private readonly shapes: ReadonlyMap<string, KeyRename[]>;

  constructor(
    readonly id: string,
    private readonly database: ToolDatabase,
    private readonly mappings: ReadonlyMap<string, ReadMapping>,
    private readonly recorded: ReadonlyMap<string, readonly string[]>,
    private readonly options: ToolWorldOptions,
    from?: Mutable,
  ) {
    this.now = from ?? initial();
    const shapes = new Map<string, KeyRename[]>(options.shapes ?? []);
    for (const mapping of mappings.values())
      if (!shapes.has(mapping.table)) shapes.set(mapping.table, mapping.renames);
    this.shapes = shapes;
  }

  get steps(): number {
    return this.now.steps;
  }

  async reset(): Promise<Observation> {
    this.now = initial();
    return { kind: 'text', content: '', callId: null };
  }

  async step(action: Action): Promise<WorldStepResult> {
    const result = await this.answer(action);
    this.now = {
      ...this.now,
      steps: this.now.steps + 1,
      history: [...this.now.history, { action, observation: result.observation }],
    };
    return result;
  }

  private async answer(action: Action): Promise<WorldStepResult> {
    if (action.type !== 'tool_call') return this.fallbackFor(action, 'not-a-tool-call');
    const handler = this.options.handlers?.[action.name];
    if (handler !== undefined) {
      const args = isRecord(action.arguments) ? action.arguments : {};
      const { state, written } = stateFor(
        this.database,
        this.now.overlay,
        this.shapes,
        this.options.format ?? {},
      );
      let content: string;
      try {
        content = handler.run(state, args);
      } catch (error) {
        // The benchmarks' tools raise on malformed arguments; the agent sees the error text.
        content = `Error: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (handler.effect === 'write') this.now = { ...this.now, overlay: written() };
      return {
        observation: { kind: 'text', content, callId: action.callId },
        exitCode: null,
        provenance: 'executed',
        detail: { tool: action.name, effect: handler.effect },
      };
    }
    const mapping = this.mappings.get(action.name);
    const key = callKey(action.name, action.arguments);
    const recorded = this.recorded.get(key);
    if (mapping === undefined && recorded === undefined && this.isUnknownTool(action.name)) {
      // No such tool in the benchmark: it refuses the call and nothing changes, so no record is
      // marked stale and no simulator is asked to invent what a tool that does not exist returns.
      return {
        observation: {
          kind: 'text',
          content: `Error: unknown tool ${action.name}`,
          callId: action.callId,
        },
        exitCode: null,
        provenance: 'executed',
        detail: { unknownTool: action.name },
      };
    }
    if (mapping === undefined) this.markStale(action.arguments);
    if (recorded !== undefined && recorded.length > 0) {
      const used = this.now.recordedUse.get(key) ?? 0;
      this.now = { ...this.now, recordedUse: new Map([...this.now.recordedUse, [key, used + 1]]) };
      const content = recorded[Math.min(used, recorded.length - 1)] ?? '';
      return {
        observation: { kind: 'text', content, callId: action.callId },
        exitCode: null,
        provenance: 'recorded',
      };
    }
    if (mapping === undefined) return this.fallbackFor(action, 'no-read-mapping');
    const args = action.arguments;
    const selected =
      typeof args === 'object' && args !== null && !Array.isArray(args)
        ? args[mapping.argument]
        : undefined;
    // The benchmark's own refusal, as its write tools give it (walk 43: `get_user_details {}` got
    // "missing-argument: no recorded response and no world model configured").
    if (selected === undefined)
      return {
        observation: {
          kind: 'text',
          content: `Error: missing argument ${mapping.argument}`,
          callId: action.callId,
        },
        exitCode: null,
        provenance: 'executed',
        detail: { table: mapping.table, missingArgument: mapping.argument },
      };
    // Present but not a key (`{"user_id": 123}`): the benchmark looks it up and finds no record.
    if (typeof selected !== 'string') return this.notFoundFor(action, mapping.table, selected);
    if (this.now.stale.has(`${mapping.table}/${selected}`))
      return this.fallbackFor(action, 'changed-by-unmodelled-write');
    const content = executeRead(
      overlayLookup(this.database, this.now.overlay),
      mapping,
      args,
      this.options.format,
    );
    if (content === null) return this.notFoundFor(action, mapping.table, selected);
    return {
      observation: { kind: 'text', content, callId: action.callId },
      exitCode: null,
      provenance: 'executed',
      detail: { table: mapping.table, key: selected },
    };
  }

  /** No record under `key`: the benchmark's not-found message where it has one, else a fallback. */
  private async notFoundFor(
    action: Extract<Action, { type: 'tool_call' }>,
    table: string,
    key: JsonValue,
  ): Promise<WorldStepResult> {
    const missing = this.options.notFound?.[table];
    if (missing === undefined) return this.fallbackFor(action, 'key-not-in-state');
    return {
      observation: { kind: 'text', content: `Error: ${missing}`, callId: action.callId },
      exitCode: null,
      provenance: 'executed',
      detail: { table, key: typeof key === 'string' ? key : JSON.stringify(key), missing: true },
    };
  }

  /**
   * Whether `name` is outside the tools the world was given. A world given none (a replay of one
   * trajectory) cannot tell, so every name may be a tool it merely does not model.
   */
  private isUnknownTool(name: string): boolean {
    const tools = this.options.tools ?? [];
    return tools.length > 0 && !tools.some((tool) => tool.function.name === name);
  }

  /** A write we cannot apply: every record its arguments name may have changed. */
  private markStale(args: JsonValue): void {
    const touched = stringsIn(args).flatMap((key) =>
      Object.entries(this.database).flatMap(([table, rows]) =>
        rows[key] === undefined ? [] : [`${table}/${key}`],
      ),
    );
    if (touched.length > 0)
      this.now = { ...this.now, stale: new Set([...this.now.stale, ...touched]) };
  }

  private async fallbackFor(action: Action, reason: string): Promise<WorldStepResult> {
    const callId = action.type === 'tool_call' ? action.callId : null;
    const model = this.options.fallback;
    if (model === undefined) {
      return {
        observation: {
          kind: 'error',
          content: unansweredText(reason, action),
          callId,
        },
        exitCode: null,
        provenance: 'world-model',
        detail: { reason },
      };
    }
    const trajectory = this.options.trajectory;
    const prediction = await model.predict(
      {
        domain: 'tool',
        task: trajectory?.task ?? null,
        systemPrompt: trajectory?.systemPrompt ?? null,
        tools: trajectory?.tools ?? [],
      },
      [...this.now.history],
      action,
    );
    return fallbackAnswer(prediction, reason, action);
  }

  snapshot(): WorldSnapshot {
    const snapshot: WorldSnapshot = { kind: 'tool', worldId: this.id, steps: this.now.steps };
    SNAPSHOTS.set(snapshot, this.now);
    return snapshot;
  }

  restore(snapshot: WorldSnapshot): void {
    const saved = SNAPSHOTS.get(snapshot);
    if (saved === undefined || snapshot.worldId !== this.id)
      throw new Error(`snapshot of another world (${snapshot.worldId}) cannot restore ${this.id}`);
    this.now = saved;
  }

  fork(): ToolWorld {
    // The database is never written and `now` is replaced, never mutated: sharing both is safe.
    return new StateToolWorld(
      this.id,
      this.database,
      this.mappings,
      this.recorded,
      this.options,
      this.now,
    );
  }

  state(): { [key: string]: JsonValue } {
    const tables: { [key: string]: JsonValue } = {};
    for (const [table, rows] of Object.entries(this.database))
      tables[table] = Object.keys(rows).length;
    const written: { [key: string]: JsonValue } = {};
    for (const [table, rows] of this.now.overlay) written[table] = [...rows.keys()].toSorted();
    return {
      steps: this.now.steps,
      tables,
      readTools: [...this.mappings.keys()],
      implementedTools: Object.keys(this.options.handlers ?? {}).toSorted(),
      written,
      staleRecords: this.staleRecords(),
    };
  }

  record(table: string, key: string): JsonValue | undefined {
    return overlayLookup(this.database, this.now.overlay)(table, key);
  }

  tools(): ToolSchema[] {
    return [...(this.options.tools ?? [])];
  }

  readMappings(): ReadMapping[] {
    return [...this.mappings.values()];
  }

  staleRecords(): string[] {
    return [...this.now.stale].toSorted();
  }
}

/**
 * A tool world over a benchmark database (e.g. tau-bench airline's users/reservations/flights):
 * identical recorded calls get their recorded answer; learned read-only tools are executed against
 * the state; the rest (writes, searches, unknown keys) go to the world model, marked so. Writes are
 * not applied: the records they name are marked stale and reads of them fall back.
 */
export function createToolWorld(
  id: string,
  database: ToolDatabase,
  options: ToolWorldOptions = {},
): ToolWorld {
  const recordedCalls = options.recorded ?? [];
  const mappings =
    options.mappings ??
    learnReadMappings(
      database,
      options.learnFrom ?? recordedCalls,
      options.format === undefined ? {} : { format: options.format },
    );
  const recorded = new Map<string, string[]>();
  for (const call of recordedCalls) {
    const key = callKey(call.name, call.arguments);
    recorded.set(key, [...(recorded.get(key) ?? []), call.observation]);
  }
  return new StateToolWorld(
    id,
    database,
    new Map(mappings.map((m) => [m.tool, m])),
    recorded,
    options,
  );
}

/** A tool world for one trajectory: its calls are the recording (and, by default, the lessons). */
export function buildToolWorld(
  trajectory: Trajectory,
  database: ToolDatabase,
  options: Omit<ToolWorldOptions, 'recorded' | 'trajectory'> = {},
): ToolWorld {
  return createToolWorld(trajectory.externalId, database, {
    ...options,
    recorded: recordedToolCalls(trajectory),
    trajectory,
  });
}
