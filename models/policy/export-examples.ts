// Renders the training examples of the bundled policy (models/terrarium-policy-tiny) from
// rollouts Terrarium plays itself: the scripted policy over the builtin seed tasks and the
// mutations a curriculum makes of them (our own data, no licence question). Each example is one
// step: the prompt as `renderPolicyPrompt` writes it for the step (through the same
// `policyTranscript` the ONNX policy keeps in play) and the scripted policy's action line. Only
// episodes that passed their verifier are kept (imitating the slips the scripted baseline makes
// on purpose would teach the mistakes). Python (models/policy/train.py) only reads the bytes.
//
// Run from the repository root:
//   npx tsx models/policy/export-examples.ts
// Writes models/policy/data/examples.jsonl and models/policy/data/manifest.json.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  bandScheduler,
  builtinSeedTasks,
  evolvableWorldFactory,
  lineageScheduler,
  policyActionLine,
  policyTranscript,
  POLICY_PROMPT_FORMAT_VERSION,
  runCurriculum,
  scriptedPolicy,
  type Policy,
} from '../../packages/curriculum/src/index.ts';

const { values } = parseArgs({
  options: {
    // Curriculum seeds 1..N train; seed 0 (the default of `curriculum run`) is never rendered, so
    // the measured pass rate is on mutations the model has not seen.
    'train-seeds': { type: 'string', default: '160' },
    'heldout-seeds': { type: 'string', default: '12' },
    // 8 generations: the tiers a run of the CLI's or the page's default length reaches.
    generations: { type: 'string', default: '8' },
    probes: { type: 'string', default: '8' },
  },
});
const trainSeeds = Number(values['train-seeds']);
const heldOutSeeds = Number(values['heldout-seeds']);
const generations = Number(values.generations);
const probes = Number(values.probes);

interface Example {
  prompt: string;
  target: string;
}

/** The scripted policy, with each of its moves written down as the policy prompt shows it. */
function transcribed(inner: Policy, episodes: Example[][]): Policy {
  return {
    name: inner.name,
    start(task, world, seed) {
      const episode = inner.start(task, world, seed);
      const transcript = policyTranscript(task.goal, world);
      const examples: Example[] = [];
      episodes.push(examples);
      return {
        async next(observation) {
          const prompt = transcript.prompt(observation);
          const move = await episode.next(observation);
          const line = policyActionLine(move);
          if (line === null) throw new Error('the scripted policy made an invalid move');
          transcript.took(line);
          examples.push({ prompt, target: `${line}\n` });
          return move;
        },
      };
    },
  };
}

const seeds = builtinSeedTasks();
const out: string[] = [];
const counts = { episodes: 0, passed: 0, kept: { train: 0, heldout: 0 }, steps: 0 };
const lastSeed = trainSeeds + heldOutSeeds;
for (let seed = 1; seed <= lastSeed; seed += 1) {
  const split = seed <= trainSeeds ? 'train' : 'heldout';
  const episodes: Example[][] = [];
  // Half the seeds climb with the lineage scheduler, half go up and down with the band one, so
  // the data holds every tier a run reaches and the tiers it falls back to.
  const scheduler = seed % 2 === 0 ? bandScheduler() : lineageScheduler();
  await runCurriculum(seeds.tasks, generations, {
    createWorld: evolvableWorldFactory(seeds.worlds),
    policy: transcribed(scriptedPolicy(), episodes),
    scheduler,
    probes,
    seed,
    onRollout: (rollout, origin) => {
      const examples = episodes.pop();
      if (examples === undefined) throw new Error('a rollout without its transcript');
      counts.episodes += 1;
      if (!rollout.evaluation.passed) return;
      counts.passed += 1;
      counts.kept[split] += 1;
      counts.steps += examples.length;
      const episode = `${seed}/g${origin.generation}/${origin.lineageId}/p${origin.probe}`;
      for (const [step, example] of examples.entries())
        out.push(
          JSON.stringify({
            episode,
            split,
            seed,
            task: origin.task.id,
            tier: origin.tier,
            axis: origin.axis,
            step,
            ...example,
          }),
        );
    },
  });
}

const text = `${out.join('\n')}\n`;
const folder = join(import.meta.dirname, 'data');
await mkdir(folder, { recursive: true });
await writeFile(join(folder, 'examples.jsonl'), text);
const manifest = {
  source:
    'rollouts of the scripted policy (packages/curriculum scriptedPolicy, default settings) over the builtin seed tasks (scratch-last-line, scratch-count-lines) and their curriculum mutations; generated here, no external data',
  promptFormatVersion: POLICY_PROMPT_FORMAT_VERSION,
  curriculum: {
    generations,
    probes,
    schedulers: 'lineage on odd seeds, band on even seeds',
    trainSeeds: `1..${trainSeeds}`,
    heldOutSeeds: `${trainSeeds + 1}..${lastSeed}`,
    neverRendered: 'seed 0 (the default seed of curriculum run, used to measure the pass rate)',
  },
  // Repeats are kept: the early tiers' tasks have no random part, so their episodes repeat across
  // seeds, and a policy meets them first and most often in a run.
  filter: 'episodes whose verifier passed, repeats kept (the curriculum plays them that often)',
  counts,
  examples: {
    file: 'models/policy/data/examples.jsonl',
    lines: out.length,
    sha256: createHash('sha256').update(text).digest('hex'),
  },
};
await writeFile(join(folder, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
process.stderr.write(`${JSON.stringify(counts)}\n`);
