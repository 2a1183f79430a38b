/// <reference types="node" />
// Test support only (imports node:fs): reads real files through the streaming reader.
import { createReadStream, readFileSync } from 'node:fs';
import type { Trajectory } from '@terrarium/schema';
import { readTrajectories } from '../../read-trajectories';

export function headOf(file: string): string {
  return readFileSync(file, 'utf8').slice(0, 64 * 1024);
}

export interface ReadResult {
  format: string | null;
  trajectories: Trajectory[];
  /** `line: reason` of each quarantined record, unreadable file, and warning. */
  problems: string[];
}

/** Reads a file the way an import does: streamed from disk through `readTrajectories`. */
export async function readFile(file: string): Promise<ReadResult> {
  const result: ReadResult = { format: null, trajectories: [], problems: [] };
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'format') result.format = event.format;
    else if (event.type === 'trajectory') result.trajectories.push(event.trajectory);
    else if (event.type === 'warning')
      result.problems.push(`${event.warning.line ?? '?'}: ${event.warning.reason}`);
    else result.problems.push(`${event.error.line ?? '?'}: ${event.error.reason}`);
  }
  return result;
}
