// Renders the training and held-out examples of the bundled world model from the real trajectories,
// with the app's own reader (@terrarium/formats), retrieval index (@terrarium/worlds) and prompt
// (@terrarium/inference), so the parsing, the neighbors and the prompt bytes are exactly those used
// at inference. Python (models/train.py) only reads the rendered bytes.
// Run: cd /work/main && npx tsx models/export-examples.ts > models/data/examples.jsonl
// Also writes models/data/manifest.json (data files with sha256, counts, the split rule) and
// models/data/split.json (the task split, copied into the model folder by train.py).
import { createHash } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedDataPath } from '../packages/schema/src/testing/index.ts';
import { renderPrompt } from '../packages/inference/src/prompt.ts';
import { sourceFiles } from './sources.ts';
import { loadSplit, neighborsFor } from '../packages/inference/src/testing/model-split.ts';

const split = await loadSplit(await sourceFiles());
const counts: Record<string, { train: number; heldOut: number }> = {};
for (const item of split.items) {
  for (const input of item.inputs) {
    const neighbors = neighborsFor(split, item, input);
    const side = item.heldOut ? 'heldOut' : 'train';
    process.stdout.write(
      `${JSON.stringify({
        trajectory: item.key,
        task: item.task,
        source: item.source,
        split: item.heldOut ? 'heldout' : 'train',
        step: input.stepIndex,
        domain: item.trajectory.domain,
        prompt: renderPrompt({ ...promptParts(item.trajectory.domain, input), neighbors }),
        promptNoContext: renderPrompt({
          ...promptParts(item.trajectory.domain, input),
          neighbors: [],
        }),
        target: input.expected.content,
      })}\n`,
    );
    const sums = (counts[item.source] ??= { train: 0, heldOut: 0 });
    sums[side]++;
  }
}

function promptParts(
  domain: (typeof split.items)[number]['trajectory']['domain'],
  input: (typeof split.items)[number]['inputs'][number],
) {
  return { domain, history: input.history, action: input.action };
}

const files = [];
for (const file of await sourceFiles()) {
  const bytes = await readFile(sharedDataPath(file));
  files.push({
    file,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
}
const manifest = {
  rule: split.rule,
  files,
  transitions: counts,
  heldOutTasks: split.heldOutTasks,
  trainTasks: split.trainTasks.length,
};
const keys = (heldOut: boolean) =>
  split.items.filter((item) => item.heldOut === heldOut).map((item) => item.key);
const splitFile = {
  rule: split.rule,
  files: files.map(({ file }) => file),
  transitions: counts,
  heldOutTasks: split.heldOutTasks,
  trainTasks: split.trainTasks.length,
  trajectories: { heldOut: keys(true), train: keys(false) },
};
await mkdir(join(import.meta.dirname, 'data'), { recursive: true });
await writeFile(
  join(import.meta.dirname, 'data', 'manifest.json'),
  `${JSON.stringify(manifest, null, 1)}\n`,
);
await writeFile(
  join(import.meta.dirname, 'data', 'split.json'),
  `${JSON.stringify(splitFile, null, 1)}\n`,
);
process.stderr.write(`${JSON.stringify(counts, null, 1)}\n`);
