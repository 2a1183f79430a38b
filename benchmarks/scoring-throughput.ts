/**
 * Benchmark of issue 4, section 6: rule and content-class scoring throughput on real benches, beside
 * the time of simply reading the same items, and milliseconds per 20 KB observation pair, in one run.
 * Goals: ≥ 20,000 item-scores/s per core for the median observation, ≤ 5 ms per 20 KB pair.
 *
 *   cd bench && node --import tsx scoring-throughput.ts
 *
 * The benches are what `bench build` makes: every dataset of ../shared/data read with the real
 * importer (`readTrajectories`), then `buildBench` with AgentWorldBench sampling (first, three middle,
 * last transition per trajectory). Items are scored with `scoreItem` / `scoreClassifiedItem`, the
 * functions a bench run calls. One item-score = one prediction of one item scored by every rule
 * metric and/or the content classes. One process, one thread: rates per CPU second are per core.
 *
 * Predictions are real observations too, so no metric meets an unrealistic fast path:
 *   near: the real observation with one value the history fixes changed (else a timestamp, else
 *         itself), what a good simulator produces;
 *   other: the real observation of another trajectory's step with the same tool, what a poor one
 *         produces.
 */
/// <reference types="node" />
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import {
  buildBench,
  classifyItem,
  contentDetail,
  itemHistory,
  scoreClassifiedItem,
  scoreItem,
  type BenchSource,
  type ClassifiedItem,
} from '@terrarium/bench';
import {
  RULE_METRICS,
  actionText,
  perturb,
  scoreClassified,
  scoreRules,
  toolOf,
} from '@terrarium/fidelity';
import { readTrajectories } from '@terrarium/formats';
import type { BenchItem, Observation } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    })
    .toSorted();
}

const TAU2 = sharedDataPath('tau2-bench/results');
const INTERCODE = sharedDataPath('intercode/data/results');
const DATASETS: Record<string, string[]> = {
  'tau2-retail': [`${TAU2}/gpt-4.1_retail_defautl_gpt-4.1_1trials.json`],
  'tau2-airline': [`${TAU2}/gpt-4.1_airline_default_gpt-4.1_1trials.json`],
  'tau2-telecom': [`${TAU2}/gpt-4.1_telecom_default_gpt-4.1_1trials.json`],
  'tau-bench-v1-airline': [
    sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
  ],
  'swe-agent': filesUnder(sharedDataPath('swe-agent')).filter((file) => file.endsWith('.traj')),
  'intercode-bash': filesUnder(`${INTERCODE}/bash`),
  'intercode-sql': filesUnder(`${INTERCODE}/sql`),
};

async function readSources(): Promise<BenchSource[]> {
  const sources: BenchSource[] = [];
  for (const [dataset, files] of Object.entries(DATASETS)) {
    for (const file of files) {
      for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
        if (event.type === 'trajectory') sources.push({ dataset, trajectory: event.trajectory });
        else if (event.type === 'quarantine' || event.type === 'fatal')
          throw new Error(`${file}: ${event.error.reason}`);
      }
    }
  }
  return sources;
}

interface Scored {
  item: BenchItem;
  near: Observation;
  other: Observation;
}

function historyText(item: BenchItem): string {
  return [
    ...item.history.flatMap((turn) => [actionText(turn.action), turn.observation.content]),
    actionText(item.action),
  ].join('\n');
}

function withPredictions(items: readonly BenchItem[]): Scored[] {
  const byTool = new Map<string, BenchItem[]>();
  for (const item of items) {
    const tool = toolOf(item.action);
    byTool.set(tool, [...(byTool.get(tool) ?? []), item]);
  }
  return items.map((item) => {
    const peer = byTool
      .get(toolOf(item.action))
      ?.find(
        (candidate) =>
          candidate.origin.trajectory !== item.origin.trajectory &&
          candidate.real.content !== item.real.content,
      );
    const input = { real: item.real.content, historyText: historyText(item), otherStep: null };
    const near =
      perturb('change-deterministic-value', input) ??
      perturb('alter-timestamp', input) ??
      item.real.content;
    const observation = (content: string): Observation => ({
      kind: item.real.kind,
      content,
      callId: null,
    });
    return { item, near: observation(near), other: observation(peer?.real.content ?? '') };
  });
}

/**
 * Best of `rounds` runs, in wall and in CPU milliseconds of this process. On a shared machine the
 * CPU time is the fairer per-core figure: it excludes the time the process waited for a core.
 */
function timed(rounds: number, run: () => void): { wall: number; cpu: number } {
  let wall = Number.POSITIVE_INFINITY;
  let cpu = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const startCpu = process.cpuUsage();
    const start = performance.now();
    run();
    wall = Math.min(wall, performance.now() - start);
    const used = process.cpuUsage(startCpu);
    cpu = Math.min(cpu, (used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

let sink = 0;

/** Reading only: parse each stored item (a frozen bench is JSONL) and touch what scoring reads. */
function readItems(lines: readonly string[]): void {
  for (const line of lines) {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed === 'object' && parsed !== null) sink += Object.keys(parsed).length;
  }
}

type Prediction = 'near' | 'other';

/** Rule metrics only, called exactly as `scoreClassifiedItem` calls them. */
function ruleScores(scored: readonly Scored[], prediction: Prediction): void {
  for (const entry of scored) {
    const { item } = entry;
    const rules = scoreRules(entry[prediction].content, item.real.content, {
      kind: item.real.kind,
      history: itemHistory(item),
      action: actionText(item.action),
    });
    sink += rules['token-f1'] ?? 0;
  }
}

/** Content classes only: classify the real observation against its history, score, explain. */
function contentScores(scored: readonly Scored[], prediction: Prediction): void {
  for (const entry of scored) {
    const content = scoreClassified(entry[prediction].content, classifyItem(entry.item).classified);
    sink += content.score;
    if (contentDetail(content) === null) sink++;
  }
}

/** Both, the bench-run path: `scoreItem` (12 ItemScore rows per prediction). */
function bothScores(scored: readonly Scored[], prediction: Prediction): void {
  for (const entry of scored) sink += scoreItem(entry.item, 'sim', entry[prediction]).length;
}

/** Both, with each item classified once beforehand (several simulators on one bench). */
function bothPreclassified(
  scored: readonly Scored[],
  classified: readonly ClassifiedItem[],
  prediction: Prediction,
): void {
  scored.forEach((entry, i) => {
    const item = classified[i];
    if (item !== undefined) sink += scoreClassifiedItem(item, 'sim', entry[prediction]).length;
  });
}

const rate = (count: number, ms: number) =>
  `${Math.round((count / ms) * 1000).toLocaleString('en-US')}/s`;
const pad = (text: string, width: number) => text.padStart(width);
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

console.log(
  `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')} (2 cores, shared)`,
);
const importStart = performance.now();
const sources = await readSources();
const importMs = performance.now() - importStart;
const buildStart = performance.now();
const { items: benchItems, manifest } = buildBench({
  trajectories: sources,
  name: 'scoring-throughput',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 1,
  devFraction: 0,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: Object.keys(DATASETS),
});
const buildMs = performance.now() - buildStart;
const all = withPredictions(benchItems);
const sizes = benchItems.map((item) => item.real.content.length).toSorted((a, b) => a - b);
const lower = percentile(sizes, 0.4);
const upper = percentile(sizes, 0.6);
console.log(
  `bench: ${manifest.itemCount} items (agentworld sampling) from ${sources.length} trajectories of ` +
    `${Object.keys(DATASETS).length} datasets; import ${importMs.toFixed(0)} ms, buildBench ${buildMs.toFixed(0)} ms`,
);
console.log(
  `items per task: ${Object.entries(manifest.byTask)
    .map(([task, count]) => `${task} ${count}`)
    .join(', ')}`,
);
console.log(
  `real observation bytes: median ${percentile(sizes, 0.5)}, 40th-60th percentile ${lower}-${upper}, ` +
    `90th ${percentile(sizes, 0.9)}, max ${sizes.at(-1) ?? 0}; history turns per item: median ` +
    `${percentile(
      benchItems.map((item) => item.history.length).toSorted((a, b) => a - b),
      0.5,
    )}`,
);

const subsets: [string, Scored[]][] = [
  ['all bench items', all],
  [
    `median-size items (40th-60th percentile, ${lower}-${upper} B)`,
    all.filter((entry) => {
      const length = entry.item.real.content.length;
      return length >= lower && length <= upper;
    }),
  ],
];
for (const [label, scored] of subsets) {
  for (let warm = 0; warm < 2; warm++) bothScores(scored, 'near');
  const lines = scored.map((entry) => JSON.stringify(entry.item));
  const classified = scored.map((entry) => classifyItem(entry.item));
  const read = timed(5, () => readItems(lines));
  const rows: [string, { wall: number; cpu: number }][] = [
    ['read only: JSON.parse of the stored items', read],
    ['rule metrics (11), near prediction', timed(3, () => ruleScores(scored, 'near'))],
    ['rule metrics (11), other-step prediction', timed(3, () => ruleScores(scored, 'other'))],
    [
      'content classes (classify+score+detail), near',
      timed(3, () => contentScores(scored, 'near')),
    ],
    ['content classes, other-step', timed(3, () => contentScores(scored, 'other'))],
    ['both: scoreItem, near', timed(3, () => bothScores(scored, 'near'))],
    ['both: scoreItem, other-step', timed(3, () => bothScores(scored, 'other'))],
    [
      'both: scoreClassifiedItem (classified once), near',
      timed(3, () => bothPreclassified(scored, classified, 'near')),
    ],
  ];
  console.log(`\n${label}: ${scored.length} items`);
  console.log(
    `${'measure'.padEnd(52)}${pad('wall ms', 9)}${pad('cpu ms', 9)}${pad('items/s wall', 14)}${pad('items/s cpu', 14)}${pad('× read', 9)}`,
  );
  for (const [name, time] of rows)
    console.log(
      `${name.padEnd(52)}${pad(time.wall.toFixed(1), 9)}${pad(time.cpu.toFixed(1), 9)}${pad(rate(scored.length, time.wall), 14)}${pad(rate(scored.length, time.cpu), 14)}${pad((time.wall / read.wall).toFixed(1), 9)}`,
    );
}

// 20 KB pairs built from the bench's real observations: JSON (tau-bench records) and terminal text
// (SWE-agent, InterCode bash).
function upTo(bytes: number, parts: readonly string[], separator: string): string {
  let text = '';
  for (const part of parts) {
    if (text.length >= bytes) break;
    text += (text === '' ? '' : separator) + part;
  }
  return text.slice(0, bytes);
}
function jsonArray(parts: readonly string[], bytes = 20_000): string {
  const kept: string[] = [];
  let length = 2;
  for (const part of parts) {
    if (length + part.length + 2 > bytes) break;
    kept.push(part);
    length += part.length + 2;
  }
  return `[${kept.join(', ')}]`;
}
function isJsonObject(text: string): boolean {
  if (!text.startsWith('{')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
const jsonParts = benchItems
  .map((item) => item.real.content)
  .filter((content) => isJsonObject(content));
const textParts = benchItems
  .filter((item) => item.domain === 'terminal' || item.domain === 'swe')
  .map((item) => item.real.content);
const jsonReal = jsonArray(jsonParts);
const textReal = upTo(20_000, textParts, '\n');
const pairs: [string, string, string][] = [
  [
    'JSON, near copy',
    jsonReal.replace(/"price": \d+/, '"price": 1').replaceAll('2024-05-1', '2024-05-2'),
    jsonReal,
  ],
  ['JSON, unrelated', jsonArray(jsonParts.slice(Math.floor(jsonParts.length / 2))), jsonReal],
  ['text, near copy', textReal.replace(/\d+/, '7').replace('File', 'Fiel'), textReal],
  [
    'text, unrelated',
    upTo(20_000, textParts.slice(Math.floor(textParts.length / 2)), '\n'),
    textReal,
  ],
];

/** A bench item whose real observation is `real`, after one earlier turn holding half of it. */
function pairItem(real: string): BenchItem {
  const base = benchItems.find((item) => item.domain === 'terminal') ?? benchItems[0];
  if (base === undefined) throw new Error('empty bench');
  const observation = (content: string): Observation => ({
    kind: real.startsWith('[') ? 'json' : 'text',
    content,
    callId: null,
  });
  return {
    ...base,
    history: [{ action: base.action, observation: observation(real.slice(0, 10_000)) }],
    real: observation(real),
  };
}

console.log(`\n20 KB pairs (wall ms per pair, best of 5; goal ≤ 5 ms)`);
console.log(`${'metric'.padEnd(26)}${pairs.map(([name]) => pad(name, 17)).join('')}`);
const perPair = (run: () => void) => timed(5, run).wall.toFixed(2);
console.log(
  `${'bytes (predicted/real)'.padEnd(26)}${pairs
    .map(([, predicted, real]) => pad(`${predicted.length}/${real.length}`, 17))
    .join('')}`,
);
for (const metric of RULE_METRICS)
  console.log(
    `${metric.id.padEnd(26)}${pairs
      .map(([, predicted, real]) =>
        pad(
          perPair(() => (sink += metric.fn(predicted, real) ?? 0)),
          17,
        ),
      )
      .join('')}`,
  );
const pairItems = pairs.map(([, predicted, real]) => ({ predicted, item: pairItem(real) }));
const pairRow = (name: string, run: (predicted: string, item: BenchItem) => number) =>
  console.log(
    `${name.padEnd(26)}${pairItems
      .map(({ predicted, item }) =>
        pad(
          perPair(() => (sink += run(predicted, item))),
          17,
        ),
      )
      .join('')}`,
  );
pairRow(
  'all 11 rule metrics',
  (predicted, item) =>
    scoreRules(predicted, item.real.content, {
      kind: item.real.kind,
      history: itemHistory(item),
      action: actionText(item.action),
    })['token-f1'] ?? 0,
);
pairRow(
  'content classes',
  (predicted, item) => scoreClassified(predicted, classifyItem(item).classified).score,
);
pairRow(
  'both: scoreItem',
  (predicted, item) =>
    scoreItem(item, 'sim', { kind: item.real.kind, content: predicted, callId: null }).length,
);

// Growth with size: a linear scorer takes about 2× per doubling, a quadratic one 4×.
const jsonOtherParts = jsonParts.slice(Math.floor(jsonParts.length / 2));
const textOtherParts = textParts.slice(Math.floor(textParts.length / 2));
const scaling: [string, (bytes: number) => [string, string]][] = [
  ['JSON, unrelated', (bytes) => [jsonArray(jsonOtherParts, bytes), jsonArray(jsonParts, bytes)]],
  ['text, unrelated', (bytes) => [upTo(bytes, textOtherParts, '\n'), upTo(bytes, textParts, '\n')]],
];
const SIZES = [5_000, 10_000, 20_000, 40_000];
console.log(`\nscoreItem ms per pair by size (unrelated prediction; ×2 per doubling = linear)`);
console.log(`${'pair'.padEnd(26)}${SIZES.map((bytes) => pad(`${bytes / 1000} KB`, 10)).join('')}`);
for (const [name, make] of scaling) {
  const times = SIZES.map((bytes) => {
    const [predicted, real] = make(bytes);
    const item = pairItem(real);
    const observation: Observation = { kind: item.real.kind, content: predicted, callId: null };
    return timed(5, () => (sink += scoreItem(item, 'sim', observation).length)).wall;
  });
  console.log(`${name.padEnd(26)}${times.map((ms) => pad(ms.toFixed(2), 10)).join('')}`);
}
console.log(`\n(checksum ${sink.toFixed(0)})`);
