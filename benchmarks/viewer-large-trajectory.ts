/**
 * Benchmark (b) of issue 2: a 10,000-step trajectory with 20 KB observations in Chromium, against a
 * 10-step trajectory of the same shape opened in the same run. Prints figures and ratios.
 *
 *   npx tsx benchmarks/viewer-large-trajectory.ts [--steps 10000] [--kb 20] [--presses 200] [--keep]
 *
 * Goals: first step painted < 1 s, JS heap < 150 MB, one j/k step painted < 16 ms after the key.
 * The data goes straight into an embedded store (the importer has its own benchmark); the server is
 * the real `terrarium serve` in its own process; the browser is Debian's Chromium, headless.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type CDPSession } from '@playwright/test';
import { openStore } from '@terrarium/db';
import { RECORD_FIRST_STEP, stepScript } from './viewer/in-page';
import { serveDataDir, type CliServer } from './viewer/serve-cli';
import { syntheticTrajectory } from './viewer/synthetic-trajectory';

const args = process.argv.slice(2);
function numberArg(name: string, fallback: number): number {
  const position = args.indexOf(name);
  const value = position === -1 ? Number.NaN : Number(args[position + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
const LARGE_STEPS = numberArg('--steps', 10_000);
const OBSERVATION_CHARS = numberArg('--kb', 20) * 1024;
const PRESSES = numberArg('--presses', 200);
const SMALL_STEPS = 10;
const LOADS = 3;
const MB = 1024 * 1024;
/** Where the run is, on stderr, so a slow phase can be told from a stuck one. */
const progress = (text: string) => process.stderr.write(`… ${text}\n`);
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // performance.memory reports exact figures only with this flag; CDP metrics are used anyway.
  '--enable-precise-memory-info',
];

interface Seeded {
  large: string;
  small: string;
}

async function seed(dataDir: string): Promise<Seeded> {
  const store = await openStore({ dataDir });
  try {
    const paths: string[] = [];
    for (const [name, steps] of [
      ['bench-large', LARGE_STEPS],
      ['bench-small', SMALL_STEPS],
    ] as const) {
      const batch = await store.beginImport(name);
      await batch.addTrajectories([syntheticTrajectory(name, steps, OBSERVATION_CHARS)]);
      await batch.commit();
      const page = await store.listTrajectories(
        { datasetId: batch.datasetId },
        { offset: 0, limit: 1 },
      );
      const row = page.rows[0];
      if (!row) throw new Error(`${name}: the trajectory was not stored`);
      paths.push(`/datasets/${batch.datasetId}/trajectories/${row.id}`);
    }
    const [large, small] = paths;
    if (!large || !small) throw new Error('seeding stored fewer trajectories than expected');
    return { large, small };
  } finally {
    await store.close();
  }
}

function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}

const FIRST_STEP_TIMES = [
  'counterAt',
  'paintedAt',
  'domContentLoadedAt',
  'firstApiRequestAt',
  'lastApiResponseAt',
] as const;
type FirstStep = Record<(typeof FIRST_STEP_TIMES)[number], number>;

function isFirstStep(value: unknown): value is FirstStep {
  return (
    typeof value === 'object' &&
    value !== null &&
    FIRST_STEP_TIMES.every((name) => typeof Reflect.get(value, name) === 'number')
  );
}

async function heapUsed(cdp: CDPSession, collectFirst: boolean): Promise<number> {
  if (collectFirst) await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const used = metrics.find((metric) => metric.name === 'JSHeapUsedSize');
  if (!used) throw new Error('Chromium reported no JSHeapUsedSize');
  return used.value;
}

interface PressTimes {
  counter: number[];
  painted: number[];
  content: number[];
}

interface Measured {
  /** Navigation start → step 1 painted, each load in a fresh browser context; the first is cold. */
  firstStepMs: number[];
  /** Where the time of each load went. */
  firstStepBreakdown: FirstStep[];
  heapAfterLoad: number;
  heapAfterLoadGc: number;
  heapAfterSteps: number;
  heapAfterStepsGc: number;
  j: PressTimes;
  k: PressTimes;
  /** A key the page ignores, pressed the same way: keydown to the next paint with nothing to do. */
  floor: PressTimes;
}

function pressTimes(raw: unknown): PressTimes {
  if (!Array.isArray(raw)) throw new Error('the stepping script returned no list');
  const times: PressTimes = { counter: [], painted: [], content: [] };
  for (const entry of raw) {
    if (!isNumberArray(entry) || entry.length !== 3) throw new Error('a malformed press timing');
    const [counter = 0, painted = 0, content = 0] = entry;
    times.counter.push(counter);
    times.painted.push(painted);
    times.content.push(content);
  }
  return times;
}

/**
 * `presses` j's from step 1, then the way back with as many k's. A short trajectory is walked back
 * and forth so that it gets as many presses; the way back retraces it to step 1.
 */
function keySequences(steps: number, presses: number): { forward: string[]; back: string[] } {
  const forward: string[] = [];
  for (let press = 0; press < presses; press++) {
    forward.push(Math.floor(press / (steps - 1)) % 2 === 0 ? 'j' : 'k');
  }
  const back = forward.toReversed().map((key) => (key === 'j' ? 'k' : 'j'));
  return { forward, back };
}

async function measure(
  browser: Browser,
  server: CliServer,
  path: string,
  steps: number,
): Promise<Measured> {
  const url = server.url + path;
  const firstStepMs: number[] = [];
  const firstStepBreakdown: FirstStep[] = [];
  for (let load = 0; load < LOADS; load++) {
    const context = await browser.newContext();
    // The owner's link, read without a page: the session cookie, and nothing of the app cached.
    await context.request.get(server.ownerLink('/'), {
      headers: { accept: 'text/html' },
      maxRedirects: 0,
    });
    const page = await context.newPage();
    await page.addInitScript(RECORD_FIRST_STEP);
    await page.goto(url);
    progress(`load ${load + 1}/${LOADS} of ${url}`);
    const first: unknown = await page.evaluate('window.__firstStep');
    if (!isFirstStep(first)) throw new Error('the first step was not recorded');
    firstStepMs.push(first.paintedAt);
    firstStepBreakdown.push(first);
    if (load < LOADS - 1) {
      await context.close();
      continue;
    }
    // Expressions are evaluated through the DevTools protocol: the app's CSP forbids eval, so
    // page.waitForFunction cannot run here. The last load stays open for the heap and stepping figures.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const heapAfterLoad = await heapUsed(cdp, false);
    const heapAfterLoadGc = await heapUsed(cdp, true);
    const { forward, back } = keySequences(steps, PRESSES);
    progress(`stepping ${forward.length} times`);
    const j = pressTimes(await page.evaluate(stepScript(forward)));
    const heapAfterSteps = await heapUsed(cdp, false);
    const heapAfterStepsGc = await heapUsed(cdp, true);
    const k = pressTimes(await page.evaluate(stepScript(back)));
    const floor = pressTimes(await page.evaluate(stepScript(forward.map(() => '-'))));
    await context.close();
    return {
      firstStepMs,
      firstStepBreakdown,
      heapAfterLoad,
      heapAfterLoadGc,
      heapAfterSteps,
      heapAfterStepsGc,
      j,
      k,
      floor,
    };
  }
  throw new Error('no load was measured');
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const median = (values: readonly number[]) => percentile(values, 0.5);
const ms = (value: number) => `${value.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const ratio = (large: number, small: number) => `${(large / small).toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? 'meets goal' : 'MISSES goal');

function pressLine(name: string, large: number[], small: number[]): string {
  return `  ${name.padEnd(34)} median ${ms(median(large)).padStart(9)}  p95 ${ms(percentile(large, 0.95)).padStart(9)}  max ${ms(Math.max(...large)).padStart(9)}  | small median ${ms(median(small))}  ratio ${ratio(median(large), median(small))}`;
}

async function main(): Promise<void> {
  const keep = args.includes('--keep');
  const dataDir = mkdtempSync(join(tmpdir(), 'terrarium-bench-viewer-'));
  const seedStarted = performance.now();
  const paths = await seed(dataDir);
  console.log(
    `seeded ${LARGE_STEPS} steps × ${OBSERVATION_CHARS / 1024} KB (${mb(LARGE_STEPS * OBSERVATION_CHARS)} of observations) and ${SMALL_STEPS} steps in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
  );
  const server = await serveDataDir(dataDir);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const small = await measure(browser, server, paths.small, SMALL_STEPS);
    const large = await measure(browser, server, paths.large, LARGE_STEPS);
    const firstLarge = median(large.firstStepMs);
    const firstSmall = median(small.firstStepMs);
    const worstPress = Math.max(median(large.j.content), median(large.k.content));
    console.log(
      `\n${cpus().length} cores, load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(
          ' ',
        )} at the end (absolute times are only meaningful on an idle machine; ratios less so)`,
    );
    console.log(
      `Chromium ${browser.version()}, ${LOADS} loads each (fresh context per load), ${PRESSES} presses of j then k`,
    );
    console.log(`first step painted (navigation start → counter + action painted)`);
    console.log(`  large: ${large.firstStepMs.map(ms).join(', ')} (median ${ms(firstLarge)})`);
    console.log(`  small: ${small.firstStepMs.map(ms).join(', ')} (median ${ms(firstSmall)})`);
    console.log(
      `  ratio large/small ${ratio(firstLarge, firstSmall)}; goal < 1000 ms: ${verdict(firstLarge < 1000)}`,
    );
    for (const [name, measured] of [
      ['large', large],
      ['small', small],
    ] as const) {
      const parts = measured.firstStepBreakdown.map(
        (times) =>
          `DOMContentLoaded ${ms(times.domContentLoadedAt)}, first API request ${ms(times.firstApiRequestAt)}, last API answer ${ms(times.lastApiResponseAt)}, counter in DOM ${ms(times.counterAt)}`,
      );
      console.log(`  where the time went (${name}), per load:\n    ${parts.join('\n    ')}`);
    }
    console.log(`JS heap used (CDP JSHeapUsedSize)                 large        small    ratio`);
    for (const [name, key] of [
      ['after load', 'heapAfterLoad'],
      ['after load, after GC', 'heapAfterLoadGc'],
      [`after ${PRESSES} steps`, 'heapAfterSteps'],
      [`after ${PRESSES} steps, after GC`, 'heapAfterStepsGc'],
    ] as const) {
      console.log(
        `  ${name.padEnd(46)} ${mb(large[key]).padStart(9)} ${mb(small[key]).padStart(12)}  ${ratio(large[key], small[key])}`,
      );
    }
    const heapPeak = Math.max(large.heapAfterLoad, large.heapAfterSteps);
    console.log(
      `  goal < 150 MB: ${verdict(heapPeak < 150 * MB)} (largest reading ${mb(heapPeak)})`,
    );
    console.log(
      `per key press (keydown → …), keys spread over the frame (0-15 ms after a frame starts)`,
    );
    console.log(pressLine('j: counter changed in the DOM', large.j.counter, small.j.counter));
    console.log(pressLine('j: counter painted', large.j.painted, small.j.painted));
    console.log(pressLine('j: step content painted', large.j.content, small.j.content));
    console.log(pressLine('k: counter changed in the DOM', large.k.counter, small.k.counter));
    console.log(pressLine('k: counter painted', large.k.painted, small.k.painted));
    console.log(pressLine('k: step content painted', large.k.content, small.k.content));
    console.log(
      pressLine('no-op key: next frame painted', large.floor.painted, small.floor.painted),
    );
    console.log(
      `  step content painted / no-op key's paint (large, median): j ${ratio(median(large.j.content), median(large.floor.painted))}, k ${ratio(median(large.k.content), median(large.floor.painted))}`,
    );
    console.log(
      `  goal < 16 ms (median, step content painted): ${verdict(worstPress < 16)} (${ms(worstPress)})`,
    );
  } finally {
    await browser.close();
    await server.stop();
    if (keep) console.log(`data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
