import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TaskExport } from '@terrarium/curriculum';

/** Writes an export: JSONL to the file `out`, Harbor folders under the folder `out`. */
export async function writeTaskExport(result: TaskExport, out: string): Promise<void> {
  if (result.format === 'jsonl') {
    await mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeFile(out, result.text);
    return;
  }
  for (const file of result.files) {
    const target = path.join(out, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
    if (file.executable) await chmod(target, 0o755);
  }
}

/** The one-line summary both export commands print (`--json` prints the report instead). */
export function exportSummary(result: TaskExport, out: string, rejected: number): string {
  const lines = [`exported ${result.exported.length} task(s) to ${out} as ${result.format}\n`];
  if (rejected > 0) lines.push(`not exported: ${rejected} (see --json for each reason)\n`);
  return lines.join('');
}
