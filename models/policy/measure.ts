// Measures a policy model folder against the scripted policy on the same tasks and seeds: the
// builtin seed tasks and the mutations a curriculum makes of them, at curriculum seed 0 (never
// rendered into the training examples), lineage scheduler, B probes per generation.
// Run from the repository root:
//   npx tsx models/policy/measure.ts [--folder models/terrarium-policy-tiny] [--file model.onnx]
//     [--generations 8] [--probes 8] [--temperature 0.3] [--out FILE]
// Prints one JSON line per policy; with --out also writes them to FILE (pass-rate.json).
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  builtinSeedTasks,
  decoderPolicy,
  evolvableWorldFactory,
  lineageScheduler,
  runCurriculum,
  scriptedPolicy,
  type Policy,
} from '../../packages/curriculum/src/index.ts';
import { loadOnnxModelFolder } from '../../packages/inference/src/node/index.ts';

const { values } = parseArgs({
  options: {
    folder: { type: 'string', default: 'models/terrarium-policy-tiny' },
    file: { type: 'string', default: 'model.onnx' },
    generations: { type: 'string', default: '8' },
    probes: { type: 'string', default: '8' },
    temperature: { type: 'string', default: '0.3' },
    seed: { type: 'string', default: '0' },
    out: { type: 'string' },
  },
});

const seeds = builtinSeedTasks();
const loaded = await loadOnnxModelFolder(values.folder, { file: values.file });

async function measure(policy: Policy) {
  let steps = 0;
  let invalid = 0;
  let rollouts = 0;
  let passed = 0;
  const started = performance.now();
  const result = await runCurriculum(seeds.tasks, Number(values.generations), {
    createWorld: evolvableWorldFactory(seeds.worlds),
    policy,
    scheduler: lineageScheduler(),
    probes: Number(values.probes),
    seed: Number(values.seed),
    onRollout: (rollout) => {
      rollouts += 1;
      if (rollout.evaluation.passed) passed += 1;
      for (const step of rollout.steps) {
        steps += 1;
        if (step.action === 'invalid') invalid += 1;
      }
    },
  });
  return {
    policy: policy.name,
    rollouts,
    passRate: Number((passed / rollouts).toFixed(4)),
    perGeneration: result.generations.map((stats) => [
      stats.generation,
      Number(stats.passRate.toFixed(3)),
      stats.meanTier,
    ]),
    steps,
    invalidSteps: invalid,
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  };
}

const onnx = decoderPolicy({
  decoder: loaded.decoder,
  name: `onnx:${values.folder} (${values.file}, temperature ${values.temperature})`,
  temperature: Number(values.temperature),
});
const results = [];
for (const policy of [scriptedPolicy(), onnx]) {
  const result = await measure(policy);
  results.push(result);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
if (values.out !== undefined) {
  const settings = {
    tasks: 'builtin seed tasks and their mutations',
    scheduler: 'lineage',
    curriculumSeed: Number(values.seed),
    generations: Number(values.generations),
    probes: Number(values.probes),
    file: values.file,
    temperature: Number(values.temperature),
  };
  await writeFile(values.out, `${JSON.stringify({ settings, results }, null, 1)}\n`);
}
