/// <reference types="node" />
// Test support only: AgentWorldBench files in the official shape, written from real trajectories
// by code independent of Terrarium's exporter: numeric ids, full per-trajectory lists, the
// official markers, a plain `system_str` (no Terrarium template), Python's `json.dumps` style.
import { createReadStream } from 'node:fs';
import { readTrajectories } from '@terrarium/formats';
import { isTransition, type Trajectory } from '@terrarium/schema';
import { actionText } from '@terrarium/worlds';

export interface OfficialRow {
  task: string;
  id: number;
  prompt: string[];
  response: string[];
  current_prompt: string;
  system_str: string;
  turn_idx: number;
  total_turns: number;
}

export async function readRealTrajectories(files: readonly string[]): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for (const file of files) {
    for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
      if (event.type === 'trajectory') trajectories.push(event.trajectory);
    }
  }
  return trajectories;
}

/** One row per sampled turn (first, quarter, middle, three quarters, last) of each trajectory. */
export function officialRows(
  trajectories: readonly Trajectory[],
  options: { task: string; firstId: number; systemStr: string },
): OfficialRow[] {
  const rows: OfficialRow[] = [];
  let id = options.firstId;
  for (const trajectory of trajectories) {
    const transitions = trajectory.steps.filter(isTransition);
    if (transitions.length === 0) continue;
    const prompt = transitions.map(
      (step, i) => `### Turn ${i + 1}\n**Action:**\n${actionText(step.action)}`,
    );
    const response = transitions.map(
      (step) => `**Environment Observation:**\n${step.observation?.content ?? ''}`,
    );
    const turns = new Set(
      [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * (transitions.length - 1))),
    );
    for (const turn of turns) {
      rows.push({
        task: options.task,
        id: id++,
        prompt,
        response,
        current_prompt: prompt[turn] ?? '',
        system_str: options.systemStr,
        turn_idx: turn + 1,
        total_turns: transitions.length,
      });
    }
  }
  return rows;
}
