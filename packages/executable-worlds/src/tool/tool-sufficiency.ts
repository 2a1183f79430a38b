import type { Trajectory } from '@terrarium/schema';
import type { ReadMapping, ToolDatabase } from './learn-reads';
import { createToolWorld, recordedToolCalls } from './tool-world';

export interface ReadCounts {
  /** Recorded observations of read-only (mapped) tools. */
  reads: number;
  /** Of those, executed against the state and equal to the recording byte for byte. */
  exact: number;
  /** Executed, but different from the recording. */
  mismatch: number;
  /** Not executed: the record was stale after a write, or absent. */
  fallback: number;
}

export interface ToolReadReport extends ReadCounts {
  byTool: { [tool: string]: ReadCounts };
}

function zero(): ReadCounts {
  return { reads: 0, exact: 0, mismatch: 0, fallback: 0 };
}

/**
 * Replay every trajectory's tool calls, in order, in a fresh world on `database` with NO
 * recording to answer from, and compare each read-only tool's executed answer with the recorded
 * one: the figure says how much of the recorded observations the state alone reproduces.
 */
export async function measureToolReads(
  trajectories: readonly Trajectory[],
  database: ToolDatabase,
  mappings: readonly ReadMapping[],
): Promise<ToolReadReport> {
  const reads = new Set(mappings.map((m) => m.tool));
  const total = zero();
  const byTool: { [tool: string]: ReadCounts } = {};
  for (const trajectory of trajectories) {
    const world = createToolWorld(trajectory.externalId, database, { mappings });
    for (const call of recordedToolCalls(trajectory)) {
      const result = await world.step({
        type: 'tool_call',
        name: call.name,
        arguments: call.arguments,
        callId: null,
      });
      if (!reads.has(call.name)) continue;
      const counts = (byTool[call.name] ??= zero());
      const outcome =
        result.provenance !== 'executed'
          ? 'fallback'
          : result.observation.content === call.observation
            ? 'exact'
            : 'mismatch';
      for (const c of [counts, total]) {
        c.reads++;
        c[outcome]++;
      }
    }
  }
  return { ...total, byTool };
}
