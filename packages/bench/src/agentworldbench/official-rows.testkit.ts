// Test support only: rows in the shape of the official AgentWorldBench files, written from real
// trajectories by code independent of the exporter (so tests check one against the other).
import { isTransition, type Trajectory } from '@terrarium/schema';
import { actionText } from '@terrarium/worlds';

export interface OfficialRowOptions {
  /** The official `task`, e.g. `mcp`. */
  task: string;
  /** First id; each row takes the next one (digits as text, so ids above 2^53 stay exact). */
  firstId: bigint;
  systemStr: string;
}

export interface OfficialRowSource {
  line: string;
  trajectory: Trajectory;
  /** 0-based evaluated turn. */
  turn: number;
  prompts: string[];
  responses: string[];
}

/** The five positions of the official sampling: first, quarter, middle, three quarters, last. */
function sampledTurns(total: number): number[] {
  return [...new Set([0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * (total - 1))))];
}

function json(value: unknown): string {
  // Python's json.dumps with ensure_ascii=False: ", " and ": " separators.
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(json).join(', ')}]`;
  return JSON.stringify(value);
}

/**
 * One row per sampled turn of each trajectory: `prompt`/`response` hold every turn of the
 * trajectory (the documented shape), with the official markers; ids are JSON numbers.
 */
export function officialRows(
  trajectories: readonly Trajectory[],
  options: OfficialRowOptions,
): OfficialRowSource[] {
  const rows: OfficialRowSource[] = [];
  let id = options.firstId;
  for (const trajectory of trajectories) {
    const transitions = trajectory.steps.filter(isTransition);
    if (transitions.length === 0) continue;
    const prompts = transitions.map(
      (step, i) => `### Turn ${i + 1}\n**Action:**\n${actionText(step.action)}`,
    );
    const responses = transitions.map(
      (step) => `**Environment Observation:**\n${step.observation?.content ?? ''}`,
    );
    for (const turn of sampledTurns(transitions.length)) {
      const members = [
        `"task": ${json(options.task)}`,
        `"id": ${id.toString()}`,
        `"prompt": ${json(prompts)}`,
        `"response": ${json(responses)}`,
        `"current_prompt": ${json(prompts[turn])}`,
        `"system_str": ${json(options.systemStr)}`,
        `"turn_idx": ${turn + 1}`,
        `"total_turns": ${transitions.length}`,
      ];
      rows.push({ line: `{${members.join(', ')}}`, trajectory, turn, prompts, responses });
      id++;
    }
  }
  return rows;
}
