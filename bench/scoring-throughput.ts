/**
 * Benchmark of issue 4, section 6: rule and content-class scoring throughput on the real items of
 * ../shared/data, beside the time of simply reading the same items, and milliseconds per 20 KB pair.
 * One process, one thread: item-scores per second here are per core. Goals: ≥ 20,000 item-scores/s
 * for the median observation, ≤ 5 ms per 20 KB pair.
 *
 *   cd bench && node --import tsx scoring-throughput.ts
 *
 * Predictions are real observations too, so no metric meets an unrealistic fast path:
 *   near: the real observation with one value the history fixes changed (else a timestamp, else
 *         itself), what a good simulator produces;
 *   other: the real observation of another step with the same tool, what a poor one produces.
 */
import { loadavg } from 'node:os';
import {
  HistoryIndex,
  RULE_METRICS,
  classifyObservation,
  perturb,
  scoreClassified,
  scoreContentClasses,
  scoreRules,
  type ScoringItem,
} from '@terrarium/fidelity';
import { REAL_DATASETS, loadItems } from '@terrarium/fidelity/testing';

interface Item extends ScoringItem {
  near: string;
  other: string;
}

function historyText(item: ScoringItem): string {
  return [...item.history.flatMap((turn) => [turn.action, turn.observation]), item.action].join(
    '\n',
  );
}

function withPredictions(items: ScoringItem[]): Item[] {
  const byTool = new Map<string, ScoringItem[]>();
  for (const item of items) byTool.set(item.tool, [...(byTool.get(item.tool) ?? []), item]);
  return items.map((item) => {
    const peers = byTool.get(item.tool) ?? [];
    const other = peers.find(
      (peer) => peer.real !== item.real && peer.trajectoryId !== item.trajectoryId,
    );
    const input = { real: item.real, historyText: historyText(item), otherStep: null };
    const near =
      perturb('change-deterministic-value', input) ??
      perturb('alter-timestamp', input) ??
      item.real;
    return { ...item, near, other: other?.real ?? '' };
  });
}

/**
 * Best of `rounds` runs, in wall milliseconds and in CPU milliseconds of this process. On a shared
 * machine (other jobs running) the CPU time is the fairer per-core figure: it excludes the time the
 * process waited for a core.
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

function best(rounds: number, run: () => void): number {
  return timed(rounds, run).wall;
}

let sink = 0;

function iterate(items: readonly Item[]): void {
  for (const item of items) {
    sink += item.real.length + item.action.length;
    for (const turn of item.history) sink += turn.observation.length;
  }
}

function rules(items: readonly Item[], prediction: 'near' | 'other'): void {
  for (const item of items)
    sink += scoreRules(item[prediction], item.real, { kind: item.kind })['token-f1'] ?? 0;
}

/** Walks each trajectory's items in order, growing one history index per trajectory (as a bench run does). */
function contentClasses(items: readonly Item[], prediction: 'near' | 'other'): void {
  let index = new HistoryIndex();
  let trajectory = '';
  for (const item of items) {
    if (item.trajectoryId !== trajectory) {
      trajectory = item.trajectoryId;
      index = new HistoryIndex();
      for (const turn of item.history) index.addTurn(turn);
    }
    index.add(item.action);
    sink += scoreClassified(item[prediction], classifyObservation(item.real, index)).score;
    index.add(item.real);
  }
}

function scoreOnly(
  items: readonly Item[],
  classified: ReturnType<typeof classifyObservation>[],
  prediction: 'near' | 'other',
): void {
  items.forEach((item, i) => {
    const real = classified[i];
    if (real !== undefined) sink += scoreClassified(item[prediction], real).score;
  });
}

const rate = (count: number, ms: number) =>
  `${Math.round((count / ms) * 1000).toLocaleString('en-US')}/s`;
const pad = (text: string, width: number) => text.padStart(width);

console.log(
  `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')} (2 cores, shared)`,
);
const loadStart = performance.now();
const all: Item[] = [];
for (const dataset of Object.keys(REAL_DATASETS))
  all.push(...withPredictions(await loadItems(dataset)));
const loadMs = performance.now() - loadStart;
const sizes = all.map((item) => item.real.length).toSorted((a, b) => a - b);
const median = sizes[sizes.length >> 1] ?? 0;
const lower = sizes[Math.floor(sizes.length * 0.4)] ?? 0;
const upper = sizes[Math.floor(sizes.length * 0.6)] ?? 0;
const middle = all.filter((item) => item.real.length >= lower && item.real.length <= upper);
const hundreds = all.filter((item) => item.real.length >= 200 && item.real.length <= 800);
console.log(
  `${all.length} real items from ${Object.keys(REAL_DATASETS).length} datasets; observation median ${median} B` +
    ` (middle fifth: ${middle.length} items, ${lower}-${upper} B); reading the files into items: ${loadMs.toFixed(0)} ms`,
);

for (const [label, items] of [
  ['all real items', all],
  ['median-size items (40th-60th percentile)', middle],
  ['items of a few hundred bytes (200-800 B)', hundreds],
] as const) {
  for (let warm = 0; warm < 2; warm++) {
    rules(items, 'near');
    contentClasses(items, 'near');
  }
  const read = timed(5, () => iterate(items));
  const classified = items.map((item) => classifyObservation(item.real, item.history, item.action));
  const rows: [string, { wall: number; cpu: number }][] = [
    ['(a) iterate the items (read baseline)', read],
    ['(b) all 11 rule metrics, near prediction', timed(3, () => rules(items, 'near'))],
    ['(b) all 11 rule metrics, other-step prediction', timed(3, () => rules(items, 'other'))],
    ['(c) content classes, classify + score, near', timed(3, () => contentClasses(items, 'near'))],
    [
      '(c) content classes, classify + score, other-step',
      timed(3, () => contentClasses(items, 'other')),
    ],
    [
      '(c) content classes, score only (classified once), near',
      timed(3, () => scoreOnly(items, classified, 'near')),
    ],
  ];
  // Reading share: this subset's part of the time it took to read all files into items.
  const loadShare = (loadMs * items.length) / all.length;
  console.log(`\n${label}: ${items.length} items`);
  console.log(
    `${'measure'.padEnd(58)}${pad('wall ms', 9)}${pad('cpu ms', 9)}${pad('scores/s wall', 15)}${pad('scores/s cpu', 15)}${pad('× iterate', 11)}${pad('× file read', 13)}`,
  );
  for (const [name, time] of rows)
    console.log(
      `${name.padEnd(58)}${pad(time.wall.toFixed(1), 9)}${pad(time.cpu.toFixed(1), 9)}${pad(rate(items.length, time.wall), 15)}${pad(rate(items.length, time.cpu), 15)}${pad((time.wall / read.wall).toFixed(0), 11)}${pad((time.wall / loadShare).toFixed(3), 13)}`,
    );
}

// 20 KB pairs built from real observations: JSON (tau-bench records) and terminal text (SWE-agent, bash).
function upTo(bytes: number, parts: readonly string[], join: string): string {
  let text = '';
  for (const part of parts) {
    if (text.length >= bytes) break;
    text += (text === '' ? '' : join) + part;
  }
  return text.slice(0, bytes);
}
const jsonParts = all.filter((item) => item.real.startsWith('{"')).map((item) => item.real);
const textParts = all
  .filter((item) => item.tool.startsWith('aci:') || item.tool.startsWith('bash:'))
  .map((item) => item.real);
const jsonArray = (parts: readonly string[]) => {
  const items: string[] = [];
  let length = 2;
  for (const part of parts) {
    if (length + part.length + 2 > 20_000) break;
    items.push(part);
    length += part.length + 2;
  }
  return `[${items.join(', ')}]`;
};
const jsonReal = jsonArray(jsonParts);
const jsonOther = jsonArray(jsonParts.slice(200));
const textReal = upTo(20_000, textParts, '\n');
const textOther = upTo(20_000, textParts.slice(300), '\n');
const historyOf = (text: string) => [{ action: 'earlier', observation: text.slice(0, 10_000) }];
const pairs: [string, string, string][] = [
  [
    'JSON, near copy',
    jsonReal.replace(/"price": \d+/, '"price": 1').replaceAll('2024-05-1', '2024-05-2'),
    jsonReal,
  ],
  ['JSON, unrelated', jsonOther, jsonReal],
  ['text, near copy', textReal.replace(/\d+/, '7').replace('File', 'Fiel'), textReal],
  ['text, unrelated', textOther, textReal],
];

console.log(`\n20 KB pairs (wall ms per pair, best of 5; goal ≤ 5 ms)`);
console.log(`${'metric'.padEnd(22)}${pairs.map(([name]) => pad(name, 17)).join('')}`);
const perPair = (run: () => void) => best(5, run).toFixed(2);
console.log(
  `${'lengths (real)'.padEnd(22)}${pairs.map(([, , real]) => pad(`${real.length} B`, 17)).join('')}`,
);
for (const metric of RULE_METRICS)
  console.log(
    `${metric.id.padEnd(22)}${pairs
      .map(([, predicted, real]) =>
        pad(
          perPair(() => (sink += metric.fn(predicted, real) ?? 0)),
          17,
        ),
      )
      .join('')}`,
  );
console.log(
  `${'all rule metrics'.padEnd(22)}${pairs
    .map(([, predicted, real]) =>
      pad(
        perPair(() => (sink += scoreRules(predicted, real)['token-f1'] ?? 0)),
        17,
      ),
    )
    .join('')}`,
);
console.log(
  `${'content classes'.padEnd(22)}${pairs
    .map(([, predicted, real]) =>
      pad(
        perPair(() => (sink += scoreContentClasses(predicted, real, historyOf(real)).score)),
        17,
      ),
    )
    .join('')}`,
);
console.log(`\n(checksum ${sink.toFixed(0)})`);
