import type { TaskExport } from '@terrarium/curriculum';
import { writeOutputFile, writeOutputFolder } from '../output-path';

/** Writes an export: JSONL to the file `out`, Harbor folders under the folder `out`. */
export async function writeTaskExport(result: TaskExport, out: string): Promise<void> {
  if (result.format === 'jsonl') await writeOutputFile(out, (stream) => stream.write(result.text));
  else await writeOutputFolder(out, result.files);
}

/** The one-line summary both export commands print (`--json` prints the report instead). */
export function exportSummary(result: TaskExport, out: string, rejected: number): string {
  const lines = [`exported ${result.exported.length} task(s) to ${out} as ${result.format}\n`];
  if (rejected > 0) lines.push(`not exported: ${rejected} (see --json for each reason)\n`);
  return lines.join('');
}
