import type { Action, Trajectory } from '@terrarium/schema';
import type { KeyRename, ReadMapping, ToolDatabase } from './learn-reads';
import type { JsonFormat } from './python-json';
import type { ToolHandlers } from './tool-state';
import { createToolWorld, recordedToolCalls } from './tool-world';

export interface ReadCounts {
  /** Recorded observations of read-only tools (learned mappings and implemented reads). */
  reads: number;
  /** Of those, executed against the state and equal to the recording byte for byte. */
  exact: number;
  /** Executed, but different from the recording. */
  mismatch: number;
  /** Not executed: the record was stale after an unmodelled write, or absent. */
  fallback: number;
}

export interface WriteCounts {
  /** Recorded observations of implemented write tools. */
  writes: number;
  /** Applied to the state, and the tool's answer equal to the recording byte for byte. */
  exact: number;
  mismatch: number;
}

export interface ToolReadReport extends ReadCounts {
  byTool: { [tool: string]: ReadCounts };
  /** Implemented writes (absent when the world implements none). */
  applied?: WriteCounts & { byTool: { [tool: string]: WriteCounts } };
}

export interface MeasureToolOptions {
  handlers?: ToolHandlers;
  format?: JsonFormat;
  notFound?: { readonly [table: string]: string };
  shapes?: ReadonlyMap<string, KeyRename[]>;
  /**
   * Actions that put a trajectory's world in its task's starting state before the replay (tau2
   * telecom's initialization actions); not counted.
   */
  prepare?: (trajectory: Trajectory) => Action[];
  /** Called per differing observation (debugging, the UI's diff). */
  onMismatch?: (tool: string, expected: string, actual: string, trajectory: string) => void;
}

function zero(): ReadCounts {
  return { reads: 0, exact: 0, mismatch: 0, fallback: 0 };
}

/**
 * Replay every trajectory's tool calls, in order, in a fresh world on `database` with NO
 * recording to answer from, and compare each read-only tool's executed answer with the recorded
 * one: the figure says how much of the recorded observations the state alone reproduces. With
 * implemented writes, each write is applied (later reads see its effect) and its own answer is
 * compared too.
 */
export async function measureToolReads(
  trajectories: readonly Trajectory[],
  database: ToolDatabase,
  mappings: readonly ReadMapping[],
  options: MeasureToolOptions = {},
): Promise<ToolReadReport> {
  const handlers = options.handlers ?? {};
  const reads = new Set([
    ...mappings.map((m) => m.tool),
    ...Object.entries(handlers).flatMap(([tool, h]) => (h.effect === 'read' ? [tool] : [])),
  ]);
  const writeTools = new Set(
    Object.entries(handlers).flatMap(([tool, h]) => (h.effect === 'write' ? [tool] : [])),
  );
  const total = zero();
  const byTool: { [tool: string]: ReadCounts } = {};
  const applied: WriteCounts & { byTool: { [tool: string]: WriteCounts } } = {
    writes: 0,
    exact: 0,
    mismatch: 0,
    byTool: {},
  };
  for (const trajectory of trajectories) {
    const world = createToolWorld(trajectory.externalId, database, {
      mappings,
      handlers,
      ...(options.format === undefined ? {} : { format: options.format }),
      ...(options.notFound === undefined ? {} : { notFound: options.notFound }),
      ...(options.shapes === undefined ? {} : { shapes: options.shapes }),
    });
    for (const action of options.prepare?.(trajectory) ?? []) await world.step(action);
    for (const call of recordedToolCalls(trajectory)) {
      const result = await world.step({
        type: 'tool_call',
        name: call.name,
        arguments: call.arguments,
        callId: null,
      });
      const same = result.observation.content === call.observation;
      if (!same && result.provenance === 'executed')
        options.onMismatch?.(
          call.name,
          call.observation,
          result.observation.content,
          trajectory.externalId,
        );
      if (writeTools.has(call.name)) {
        const counts = (applied.byTool[call.name] ??= { writes: 0, exact: 0, mismatch: 0 });
        for (const c of [counts, applied]) {
          c.writes++;
          c[same ? 'exact' : 'mismatch']++;
        }
        continue;
      }
      if (!reads.has(call.name)) continue;
      const counts = (byTool[call.name] ??= zero());
      const outcome = result.provenance !== 'executed' ? 'fallback' : same ? 'exact' : 'mismatch';
      for (const c of [counts, total]) {
        c.reads++;
        c[outcome]++;
      }
    }
  }
  return writeTools.size === 0 ? { ...total, byTool } : { ...total, byTool, applied };
}
