// Held-out fidelity of the bundled model, per dataset, on the held-out TASKS (split.json): the
// model with its prompt as built at inference (the earlier transition, the retrieved neighbors, the
// action), retrieval alone (the first neighbor's observation, what createRetrievalWorldModel
// answers), and the model without retrieved neighbors (same weights; the earlier transition still
// shown). Scored as the benches score: the content-class score and token F1 of @terrarium/fidelity,
// with 95% bootstrap intervals over transitions.
// Run: cd /work/main && npx tsx models/evaluate.ts [--every N] [--max-tokens N] [--file model.onnx]
//   [--sims model,retrieval,model-no-context] [--merge: add the rows to the existing report]
//   [--anchor-bias NATS: how the model leans on the first neighbor's answer; default ANCHOR_BIAS]
// Writes models/terrarium-wm-tiny/fidelity.json (fidelity-int8.json for the int8 file).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  actionText,
  scoreContentClasses,
  scoreRules,
  type HistoryTurn,
} from '../packages/fidelity/src/index.ts';
import { bootstrapInterval } from '../packages/labels/src/agreement/index.ts';
import type { PredictionInput } from '../packages/worlds/src/index.ts';
import {
  ANCHOR_BIAS,
  OBSERVATION_MAX_TOKENS,
  createOnnxWorldModel,
  promptNeighbors,
  UNSEEN_CUSTOMERS,
} from '../packages/inference/src/index.ts';
import { BUNDLED_MODEL_FOLDER, loadOnnxModelFolder } from '../packages/inference/src/node/index.ts';
import {
  customerInTraining,
  loadSplit,
  retrievalAnswer,
  type SplitItem,
} from '../packages/inference/src/testing/model-split.ts';
import { sourceFiles } from './sources.ts';

const { values } = parseArgs({
  options: {
    every: { type: 'string', default: '1' },
    'max-tokens': { type: 'string', default: String(OBSERVATION_MAX_TOKENS) },
    file: { type: 'string', default: 'model.onnx' },
    folder: { type: 'string', default: BUNDLED_MODEL_FOLDER },
    sims: { type: 'string', default: 'model,retrieval,model-no-context' },
    out: { type: 'string' },
    'anchor-bias': { type: 'string', default: String(ANCHOR_BIAS) },
    // Add these simulators' rows to the report already in the out file (same split and settings).
    merge: { type: 'boolean', default: false },
  },
});
const every = Number(values.every);
const maxTokens = Number(values['max-tokens']);
const file = values.file;
const sims = values.sims.split(',');
const anchorBias = Number(values['anchor-bias']);
if (!(anchorBias >= 0)) throw new Error(`--anchor-bias: ${values['anchor-bias']} is not ≥ 0`);

interface StepScore {
  content: number;
  tokenF1: number;
  /** The prediction is the first neighbor's answer, whole: the context could not hold it. */
  fromReference: boolean;
}

/** One prediction scored as a bench scores it: content classes (history-aware) and token F1. */
function scoreStep(predicted: string, input: PredictionInput, fromReference: boolean): StepScore {
  const history: HistoryTurn[] = input.history.map((turn) => ({
    action: actionText(turn.action),
    observation: turn.observation.content,
  }));
  const action = actionText(input.action);
  const real = input.expected.content;
  return {
    content: scoreContentClasses(predicted, real, history, action).score,
    tokenF1: scoreRules(predicted, real, { history, action })['token-f1'] ?? 0,
    fromReference,
  };
}

interface Summary {
  mean: number;
  low: number | null;
  high: number | null;
}

const round = (value: number | null): number | null =>
  value === null ? null : Math.round(value * 1000) / 1000;

function mean(sample: readonly number[]): number | null {
  return sample.length === 0 ? null : sample.reduce((sum, value) => sum + value, 0) / sample.length;
}

/** Mean with its 95% percentile-bootstrap interval (1,000 resamples over transitions, seeded). */
function summarize(scores: readonly number[]): Summary {
  const interval = bootstrapInterval(scores, mean, { resamples: 1000, seed: 13 });
  return {
    mean: round(interval.estimate) ?? 0,
    low: round(interval.low),
    high: round(interval.high),
  };
}

const split = await loadSplit(await sourceFiles());
const loaded = await loadOnnxModelFolder(values.folder, { file });
const withContext = createOnnxWorldModel({
  decoder: loaded.decoder,
  id: 'terrarium-wm-tiny',
  neighbors: (context, history, action) => promptNeighbors(split.index, context, history, action),
  anchorBias,
});
const withoutContext = createOnnxWorldModel({ decoder: loaded.decoder, id: 'terrarium-wm-tiny' });

/**
 * Per source, per simulator, the scores of each held-out transition. Held-out airline tasks about a
 * customer the training side has a task of are not unseen (`customerInTraining`): the groups
 * suffixed UNSEEN_CUSTOMERS leave them out (for tau2 airline none is left; it has no such row).
 */
const scores: Record<string, Record<string, StepScore[]>> = {};
const groupsOf = (item: SplitItem): string[] => {
  if (customerInTraining(split, item)) return [item.source, 'all'];
  const unseen = item.customer === null ? [] : [`${item.source}${UNSEEN_CUSTOMERS}`];
  return [item.source, 'all', `all${UNSEEN_CUSTOMERS}`, ...unseen];
};
const record = (item: SplitItem, sim: string, score: StepScore) => {
  for (const group of groupsOf(item)) ((scores[group] ??= {})[sim] ??= []).push(score);
};

let seen = 0;
const started = performance.now();
for (const item of split.items.filter((candidate) => candidate.heldOut)) {
  for (const input of item.inputs) {
    if (seen++ % every !== 0) continue;
    const predict = async (sim: string): Promise<StepScore> => {
      if (sim === 'retrieval') {
        const answer = retrievalAnswer(
          promptNeighbors(split.index, input.context, input.history, input.action),
        );
        return scoreStep(answer, input, false);
      }
      const model = sim === 'model' ? withContext : withoutContext;
      const prediction = await model.predict(input.context, input.history, input.action, {
        maxTokens,
      });
      const finish = Reflect.get(Object(prediction.provenance.detail), 'finishReason');
      return scoreStep(prediction.observation.content, input, finish === 'reference');
    };
    for (const sim of sims) record(item, sim, await predict(sim));
  }
  process.stderr.write('.');
}
process.stderr.write('\n');

const report = {
  file: `onnx/${file}`,
  split: split.rule,
  heldOutTasks: split.heldOutTasks.length,
  every,
  maxTokens,
  greedy: true,
  anchorBias: round(anchorBias),
  seconds: Math.round((performance.now() - started) / 1000),
  bySource: Object.fromEntries(
    Object.entries(scores).map(([source, bySim]) => [
      source,
      Object.fromEntries(
        Object.entries(bySim).map(([sim, list]) => [
          sim,
          {
            transitions: list.length,
            content: summarize(list.map((score) => score.content)),
            tokenF1: summarize(list.map((score) => score.tokenF1)),
            ...(sim === 'retrieval'
              ? {}
              : { neighborAnswers: list.filter((score) => score.fromReference).length }),
          },
        ]),
      ),
    ]),
  ),
};
const out = values.out ?? (file === 'model.onnx' ? 'fidelity.json' : 'fidelity-int8.json');
const outPath = out.includes('/') ? out : join(values.folder, out);
const written = values.merge
  ? mergedInto(JSON.parse(await readFile(outPath, 'utf8')), report)
  : report;
await writeFile(outPath, `${JSON.stringify(written, null, 1)}\n`);
console.log(JSON.stringify(written, null, 1));

/** An earlier report with this run's simulators added per source; the settings must match. */
function mergedInto(earlier: typeof report, added: typeof report): typeof report {
  for (const key of ['file', 'split', 'every', 'maxTokens', 'anchorBias'] as const) {
    if (earlier[key] !== added[key]) throw new Error(`--merge: ${key} differs from ${outPath}`);
  }
  const bySource = { ...earlier.bySource };
  for (const [source, bySim] of Object.entries(added.bySource)) {
    bySource[source] = { ...bySource[source], ...bySim };
  }
  return { ...earlier, seconds: earlier.seconds + added.seconds, bySource };
}
