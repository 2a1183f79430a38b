/**
 * Issue 10 §5: `POST /v1/reward` with a rule-only rule set (`default-tool`: the content-class
 * score) at 64 concurrent clients, requests/s and p99, against a bare endpoint on the same server
 * (`POST /bare`: the same body read and parsed, a constant answer). Goals: ≥ 0.5 of bare, and
 * ≥ 10,000 item-scores/s for median-size items on 2 cores.
 *
 *   node --import tsx reward-throughput.ts [--clients 64] [--seconds 4] [--rounds 3] [--batch 64]
 *
 * Variants: one item per request with a one-rule inline set (`exact`: the route's own cost) and
 * with `default-tool` (the 0.5 ratio is about per-request overhead); `--batch` items per request
 * (item-scores/s: how trainers call it), distinct items and GRPO-style groups of 8 predictions per
 * reference (`grpo-8`: the classification cache). The machine is shared, so item-scores per server
 * CPU-second (from /proc) are printed beside the wall-clock rates.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { loadItems, REAL_DATASETS } from '@terrarium/fidelity/testing';
import { JsonClient, percentile, type Child } from './env-server-load';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '64' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    batch: { type: 'string', default: '64' },
  },
});
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);

interface Item {
  prediction: string;
  reference: string;
  history: { action: string; observation: string }[];
  action: string;
  domain: string;
}

/**
 * Real transitions of every dataset in ../shared/data (as scoring-throughput.ts: InterCode SQL and
 * bash dominate the median) around the median observation size, each with a damaged copy.
 */
async function medianItems(count: number): Promise<{ items: Item[]; medianChars: number }> {
  const all = [];
  for (const dataset of Object.keys(REAL_DATASETS)) {
    try {
      all.push(...(await loadItems(dataset)));
    } catch {
      // A dataset not beside this clone (InterCode is not shipped) is left out.
    }
  }
  const sorted = all.toSorted((a, b) => a.real.length - b.real.length);
  const middle = Math.floor(sorted.length / 2);
  const window = sorted.slice(Math.max(0, middle - count / 2), middle + count / 2);
  const items = window.map((item) => ({
    // A plausible imperfect prediction: the last quarter of the observation lost.
    prediction: item.real.slice(0, Math.ceil(item.real.length * 0.75)),
    reference: item.real,
    history: item.history,
    action: item.action,
    domain: item.tool.includes(':') ? 'terminal' : 'tool',
  }));
  return { items, medianChars: sorted[middle]?.real.length ?? 0 };
}

function startServer(): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'reward-server-child.ts'], {
    cwd: import.meta.dirname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout?.once('data', (chunk: Buffer) => {
      const parsed: unknown = JSON.parse(chunk.toString('utf8'));
      const port =
        typeof parsed === 'object' && parsed !== null && 'port' in parsed
          ? Number(parsed.port)
          : NaN;
      resolve({
        port,
        process: child,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** CPU seconds the server process has used (utime + stime from /proc, 100 ticks/s on Linux). */
async function serverCpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  const { readFile } = await import('node:fs/promises');
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Load {
  /** Server CPU seconds per second of the round: how much of the 2 cores it got. */
  serverCpu: number;
  /** Requests per server CPU second: the rate a core of its own would reach. */
  perCpuSecond: number;
  requests: number;
  perSecond: number;
  p99: number;
  errors: number;
}

async function load(
  client: JsonClient,
  path: string,
  bodies: unknown[],
  pid?: number,
): Promise<Load> {
  const cpuBefore = await serverCpuSeconds(pid);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, lane) => {
      let at = lane;
      while (performance.now() < deadline) {
        const sent = performance.now();
        const answer = await client.call('POST', path, bodies[at % bodies.length]);
        latencies.push(performance.now() - sent);
        if (answer.status !== 200) errors += 1;
        at += CLIENTS;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = (await serverCpuSeconds(pid)) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return {
    serverCpu: cpu / elapsed,
    perCpuSecond: latencies.length / cpu,
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p99: percentile(latencies, 99),
    errors,
  };
}

/** `default-tool` (the content-class score); `exact` (one exact-match rule, inline): the route's own cost. */
const RULE_SETS: Record<string, unknown> = {
  'default-tool': { name: 'default-tool' },
  exact: { name: 'exact', rules: [{ id: 'exact', type: 'metric', metric: 'exact-match' }] },
};

/** GRPO-style groups: each reference with `samples` different predictions (cut at 50-100%). */
function groupedItems(items: Item[], samples: number): Item[] {
  return items.flatMap((item) =>
    Array.from({ length: samples }, (_, k) => ({
      ...item,
      prediction: item.reference.slice(
        0,
        Math.ceil(item.reference.length * (0.5 + (0.5 * k) / samples)),
      ),
    })),
  );
}

function bodiesOf(items: Item[], batch: number, ruleSet = 'default-tool'): unknown[] {
  const bodies: unknown[] = [];
  for (let start = 0; start + batch <= items.length; start += batch)
    bodies.push({ ruleSet: RULE_SETS[ruleSet], items: items.slice(start, start + batch) });
  return bodies;
}

const { items, medianChars } = await medianItems(Math.max(256, BATCH * 4));
const server = await startServer();
const client = new JsonClient(server.port);
try {
  // Warm up both paths (JIT, the rule-set cache).
  for (const path of ['/bare', '/v1/reward']) await load(client, path, bodiesOf(items, 1));
  console.log(
    `${items.length} real items around the median observation size (${medianChars} chars); ${CLIENTS} clients, ${SECONDS} s per round, best of ${ROUNDS}`,
  );
  for (const [batch, ruleSet] of [
    [1, 'exact'],
    [1, 'default-tool'],
    [BATCH, 'default-tool'],
    [BATCH, 'grpo-8'],
  ] as const) {
    const bodies =
      ruleSet === 'grpo-8'
        ? bodiesOf(groupedItems(items.slice(0, 64), 8), batch)
        : bodiesOf(items, batch, ruleSet);
    let best: { bare: Load; reward: Load } | null = null;
    for (let round = 0; round < ROUNDS; round++) {
      const bare = await load(client, '/bare', bodies, server.process.pid);
      const reward = await load(client, '/v1/reward', bodies, server.process.pid);
      if (
        best === null ||
        reward.perSecond / bare.perSecond > best.reward.perSecond / best.bare.perSecond
      )
        best = { bare, reward };
      console.log(
        `  ${ruleSet}, batch ${batch}, round ${round + 1}: bare ${bare.perSecond.toFixed(0)} req/s p99 ${bare.p99.toFixed(1)} ms | reward ${reward.perSecond.toFixed(0)} req/s p99 ${reward.p99.toFixed(1)} ms, ${(reward.perSecond * batch).toFixed(0)} item-scores/s (${(reward.perCpuSecond * batch).toFixed(0)} per server CPU-second; server got ${reward.serverCpu.toFixed(2)} cores), errors ${reward.errors + bare.errors}`,
      );
    }
    if (best === null) continue;
    console.log(
      `${ruleSet}, batch ${batch}: reward/bare requests/s ${(best.reward.perSecond / best.bare.perSecond).toFixed(2)} (goal ≥ 0.5), p99 ${best.reward.p99.toFixed(1)} vs ${best.bare.p99.toFixed(1)} ms, item-scores/s ${(best.reward.perSecond * batch).toFixed(0)}, per server CPU-second ${(best.reward.perCpuSecond * batch).toFixed(0)} (goal ≥ 10000 on 2 cores)`,
    );
  }
} finally {
  client.close();
  await server.stop();
}
