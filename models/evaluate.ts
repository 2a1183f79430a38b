// Held-out fidelity of the bundled model against the retrieval baseline (BM25 over the training
// trajectories only), scored with @terrarium/fidelity's rule metrics.
// Run: cd /work/main && npx tsx models/evaluate.ts [--every N] [--max-tokens N]
// Writes models/terrarium-wm-tiny/fidelity.json.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { scoreRules } from '../packages/fidelity/src/index.ts';
import type { Trajectory } from '../packages/schema/src/index.ts';
import {
  buildRetrievalIndex,
  createRetrievalWorldModel,
  predictionInputs,
  type WorldModel,
} from '../packages/worlds/src/index.ts';
import { createOnnxWorldModel } from '../packages/inference/src/index.ts';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from '../packages/inference/src/node/index.ts';
import { heldOutKeys, keyedTrajectories } from '../packages/inference/src/testing/held-out.ts';
import { sourceFiles } from './sources.ts';

const { values } = parseArgs({
  options: {
    every: { type: 'string', default: '1' },
    'max-tokens': { type: 'string', default: '384' },
  },
});
const every = Number(values.every);
const maxTokens = Number(values['max-tokens']);

function sourceLabel(file: string): string {
  if (file.startsWith('tau2-bench/'))
    return `tau2/${/_(retail|airline|telecom)_/.exec(file)?.[1] ?? 'other'}`;
  if (file.startsWith('tau-bench-v1/')) return 'tau-bench-v1/airline';
  if (file.startsWith('intercode/'))
    return file.includes('/sql/') ? 'intercode/sql' : 'intercode/bash';
  return 'swe-agent';
}

const heldOut = new Set(await heldOutKeys());
const train: Trajectory[] = [];
const test: { source: string; trajectory: Trajectory }[] = [];
for (const file of await sourceFiles()) {
  const source = sourceLabel(file);
  for (const { key, trajectory } of await keyedTrajectories(file)) {
    if (heldOut.has(key)) test.push({ source, trajectory });
    else train.push(trajectory);
  }
}

const retrieval = createRetrievalWorldModel(buildRetrievalIndex(train));
const { decoder } = await loadOnnxModelFolder(BUNDLED_MODEL_FOLDER);
const onnx = createOnnxWorldModel({ decoder, id: 'terrarium-wm-tiny' });
const models: Record<string, WorldModel> = { retrieval, 'terrarium-wm-tiny': onnx };

interface Sums {
  n: number;
  tokenF1: number;
  exact: number;
}
const totals: Record<string, Record<string, Sums>> = {};
const add = (source: string, model: string, tokenF1: number, exact: number): void => {
  for (const group of [source, 'all']) {
    const bySource = (totals[group] ??= {});
    const sums = (bySource[model] ??= { n: 0, tokenF1: 0, exact: 0 });
    sums.n++;
    sums.tokenF1 += tokenF1;
    sums.exact += exact;
  }
};

let seen = 0;
const started = performance.now();
for (const { source, trajectory } of test) {
  for (const input of predictionInputs(trajectory)) {
    if (seen++ % every !== 0) continue;
    for (const [name, model] of Object.entries(models)) {
      const prediction = await model.predict(input.context, input.history, input.action, {
        maxTokens,
      });
      const scores = scoreRules(prediction.observation.content, input.expected.content);
      add(source, name, scores['token-f1'] ?? 0, scores['exact-match'] ?? 0);
    }
  }
}

const report = {
  heldOutTrajectories: test.length,
  transitionsScored: totals.all?.retrieval?.n ?? 0,
  every,
  maxTokens,
  seconds: Math.round((performance.now() - started) / 1000),
  bySource: Object.fromEntries(
    Object.entries(totals).map(([source, byModel]) => [
      source,
      Object.fromEntries(
        Object.entries(byModel).map(([model, sums]) => [
          model,
          {
            transitions: sums.n,
            meanTokenF1: Number((sums.tokenF1 / sums.n).toFixed(3)),
            exactMatch: Number((sums.exact / sums.n).toFixed(3)),
          },
        ]),
      ),
    ]),
  ),
};
await writeFile(
  join(BUNDLED_MODEL_FOLDER, 'fidelity.json'),
  `${JSON.stringify(report, null, 1)}\n`,
);
console.log(JSON.stringify(report, null, 1));
