// Renders the training examples of the bundled world model from the real trajectories, with the
// app's own reader (@terrarium/formats) and the inference prompt (@terrarium/inference), so the
// parsing and the prompt bytes are exactly those used at inference.
// Run: cd /work/main && npx tsx models/export-examples.ts > models/data/examples.jsonl
import { createReadStream } from 'node:fs';
import { readTrajectories } from '../packages/formats/src/index.ts';
import { predictionInputs } from '../packages/worlds/src/index.ts';
import { renderPrompt } from '../packages/inference/src/prompt.ts';
import { DATA, sourceFiles } from './sources.ts';

const files = await sourceFiles();
const counts: Record<string, number> = {};
for (const file of files) {
  const path = `${DATA}/${file}`;
  let index = 0;
  for await (const event of readTrajectories(createReadStream(path), { fileName: path })) {
    if (event.type !== 'trajectory') continue;
    const trajectory = event.trajectory;
    // The key the split is made on: unique across files even where external ids repeat.
    const key = `${file}#${index++}#${trajectory.externalId}`;
    for (const input of predictionInputs(trajectory)) {
      process.stdout.write(
        `${JSON.stringify({
          trajectory: key,
          step: input.stepIndex,
          domain: trajectory.domain,
          prompt: renderPrompt(trajectory.domain, input.history, input.action),
          target: input.expected.content,
        })}\n`,
      );
      counts[file] = (counts[file] ?? 0) + 1;
    }
  }
}
process.stderr.write(`${JSON.stringify(counts, null, 1)}\n`);
