// Builds the bundled world model's data from the real trajectories with the app's own reader
// (@terrarium/formats), retrieval index (@terrarium/worlds) and prompt builder (@terrarium/inference),
// so the parsing, the neighbors and the prompt ids are exactly those used at inference.
// models/train.py only reads ids; it never tokenizes or renders anything.
//
// Two stages, around the tokenizer (trained by models/train_tokenizer.py on the training side):
//   npx tsx models/export-examples.ts --corpus      writes data/corpus.jsonl (training-side actions
//                                                   and observations) and data/specials.json
//   npx tsx models/export-examples.ts               writes data/examples.jsonl (prompt and target
//                                                   ids, built with data/tokenizer.json), and
//                                                   data/manifest.json, data/split.json
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { actionText } from '../packages/worlds/src/index.ts';
import { createHfTokenizer } from '../packages/inference/src/hf-tokenizer.ts';
import { buildPrompt, PROMPT_MARKERS } from '../packages/inference/src/prompt.ts';
import { createRng } from '../packages/inference/src/sampling.ts';
import { sharedDataPath } from '../packages/schema/src/testing/index.ts';
import {
  loadSplit,
  neighborsFor,
  type SplitItem,
} from '../packages/inference/src/testing/model-split.ts';
import { createDigitRenamer } from '../packages/inference/src/testing/rename-digits.ts';
import { sourceFiles } from './sources.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'boolean', default: false },
    /** Renderings of each training transition, each with neighbors drawn differently. */
    variants: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1234' },
    /** Share of training renderings whose ids are renamed (prompt and target alike; rename-digits.ts). */
    rename: { type: 'string', default: '0.75' },
  },
});
const DATA = join(import.meta.dirname, 'data');
await mkdir(DATA, { recursive: true });
const split = await loadSplit(await sourceFiles());

/** The tokenizer's special tokens, in id order: EOS, padding, then the prompt's markers. */
const SPECIALS = ['<|endoftext|>', '<|pad|>', ...Object.values(PROMPT_MARKERS)];

if (values.corpus) {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const item of split.items.filter((candidate) => !candidate.heldOut)) {
    for (const input of item.inputs) {
      for (const text of [actionText(input.action), input.expected.content]) {
        if (seen.has(text)) continue;
        seen.add(text);
        lines.push(JSON.stringify(text));
      }
    }
  }
  await writeFile(join(DATA, 'corpus.jsonl'), `${lines.join('\n')}\n`);
  await writeFile(join(DATA, 'specials.json'), `${JSON.stringify(SPECIALS)}\n`);
  process.stderr.write(`corpus: ${lines.length} distinct training-side texts\n`);
  process.exit(0);
}

const tokenizer = createHfTokenizer(
  JSON.parse(await readFile(join(DATA, 'tokenizer.json'), 'utf8')),
);
const random = createRng(Number(values.seed));
const variants = Number(values.variants);
const renameShare = Number(values.rename);
/** Training renderings draw their neighbors among this many candidates of other tasks. */
const CANDIDATES = 6;
/** Share of training renderings without neighbors, so the model also answers when the corpus has nothing alike. */
const NO_CONTEXT = 0.1;

function draw<T>(candidates: readonly T[], k: number): T[] {
  const pool = [...candidates];
  const out: T[] = [];
  while (out.length < k && pool.length > 0) {
    // Best-first bias: the nearest candidates are drawn more often, as retrieval would rank them.
    const at = Math.floor(random() ** 2 * pool.length);
    out.push(...pool.splice(at, 1));
  }
  return out;
}

const out: string[] = [];
const counts: Record<string, { train: number; heldOut: number }> = {};
for (const item of split.items) {
  for (const input of item.inputs) {
    const base = { domain: item.trajectory.domain, history: input.history, action: input.action };
    const row = (variant: number, neighbors: ReturnType<typeof neighborsFor>) => {
      // Held-out rows are never renamed: they are what the app will see.
      const rename = !item.heldOut && random() < renameShare ? createDigitRenamer(random) : null;
      // A prompt's text encodes back to its ids (markers included), so renaming its text renames the prompt.
      const ids = (prompt: { ids: number[]; text: string }) =>
        rename === null ? prompt.ids : tokenizer.encode(rename(prompt.text));
      const content = input.expected.content;
      return JSON.stringify({
        trajectory: item.key,
        task: item.task,
        source: item.source,
        split: item.heldOut ? 'heldout' : 'train',
        step: input.stepIndex,
        variant,
        renamed: rename !== null,
        prompt: ids(buildPrompt({ ...base, neighbors }, tokenizer)),
        promptNoContext: ids(buildPrompt({ ...base, neighbors: [] }, tokenizer)),
        target: tokenizer.encode(rename === null ? content : rename(content)),
      });
    };
    if (item.heldOut) {
      out.push(row(0, neighborsFor(split, item, input)));
    } else {
      const candidates = neighborsFor(split, item, input, CANDIDATES);
      out.push(row(0, candidates.slice(0, 2)));
      for (let variant = 1; variant < variants; variant++) {
        out.push(row(variant, random() < NO_CONTEXT ? [] : draw(candidates, 2)));
      }
    }
    const sums = (counts[item.source] ??= { train: 0, heldOut: 0 });
    sums[item.heldOut ? 'heldOut' : 'train']++;
  }
}
const examples = `${out.join('\n')}\n`;
await writeFile(join(DATA, 'examples.jsonl'), examples);

const files = [];
for (const file of await sourceFiles()) {
  const bytes = await readFile(sharedDataPath(file));
  files.push({
    file,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
}
const keys = (heldOut: boolean) =>
  split.items.filter((item: SplitItem) => item.heldOut === heldOut).map((item) => item.key);
await writeFile(
  join(DATA, 'manifest.json'),
  `${JSON.stringify(
    {
      rule: split.rule,
      files,
      transitions: counts,
      heldOutTasks: split.heldOutTasks,
      trainTasks: split.trainTasks.length,
      examples: {
        file: 'models/data/examples.jsonl',
        lines: out.length,
        variants,
        renamed: renameShare,
        seed: Number(values.seed),
        sha256: createHash('sha256').update(examples).digest('hex'),
      },
    },
    null,
    1,
  )}\n`,
);
await writeFile(
  join(DATA, 'split.json'),
  `${JSON.stringify(
    {
      rule: split.rule,
      files: files.map(({ file }) => file),
      transitions: counts,
      heldOutTasks: split.heldOutTasks,
      trainTasks: split.trainTasks,
      trainCustomers: [...split.trainCustomers].toSorted(),
      trajectories: { heldOut: keys(true), train: keys(false) },
    },
    null,
    1,
  )}\n`,
);
process.stderr.write(`${out.length} examples\n${JSON.stringify(counts, null, 1)}\n`);
