/**
 * Issue 11 §4 soak: 1,000 live sessions for 60 s on the Terrarium env server (its own process),
 * with idle expiry doing the cleanup: each client opens a session, takes 5-20 steps with short
 * pauses, then deletes it or (half the time) walks away. Goal: 0 errors, RSS flat.
 *
 *   node --import tsx env-server-soak.ts [--sessions 1000] [--seconds 60] [--idle-ms 10000]
 */
import { parseArgs } from 'node:util';
import { seededRandom } from './seeded-random';
import { idOf, JsonClient, rssOf, startNodeChild } from './env-server-load';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '60' },
    'idle-ms': { type: 'string', default: '10000' },
  },
});
const SESSIONS = Number(values.sessions);
const SECONDS = Number(values.seconds);
const IDLE_MS = Number(values['idle-ms']);
const ACTIONS = ['cat /data/file-0.txt', 'echo more >> /log.txt', 'ls /data', 'wc -l /log.txt'];

const child = await startNodeChild([
  '--mode',
  'terrarium',
  '--idle-ms',
  String(IDLE_MS),
  '--max-sessions',
  String(SESSIONS * 4),
]);
const pid = child.process.pid ?? 0;
const client = new JsonClient(child.port);
const random = seededRandom(11);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let created = 0;
let steps = 0;
let abandoned = 0;
let errors = 0;
const errorSamples: string[] = [];
const deadline = performance.now() + SECONDS * 1000;

function fail(what: string): void {
  errors += 1;
  if (errorSamples.length < 5) errorSamples.push(what);
}

async function openSessions(): Promise<number> {
  const answer = await client.call('GET', '/v1/envs');
  const json = answer.json;
  return typeof json === 'object' && json !== null && 'sessions' in json
    ? Number(json.sessions)
    : NaN;
}

async function clientLoop(index: number): Promise<void> {
  while (performance.now() < deadline) {
    const opened = await client.call('POST', '/v1/envs', { world: 'scratch', seed: index });
    if (opened.status !== 201) {
      fail(`create ${opened.status}`);
      await pause(1000);
      continue;
    }
    created += 1;
    const id = idOf(opened.json);
    const count = 5 + Math.floor(random() * 16);
    for (let i = 0; i < count && performance.now() < deadline; i += 1) {
      const answer = await client.call('POST', `/v1/envs/${id}/step`, {
        action: ACTIONS[i % ACTIONS.length],
      });
      if (answer.status === 200) steps += 1;
      else fail(`step ${answer.status}`);
      await pause(20 + Math.floor(random() * 200));
    }
    if (random() < 0.5) {
      abandoned += 1;
    } else {
      const closed = await client.call('DELETE', `/v1/envs/${id}`);
      if (closed.status !== 204) fail(`delete ${closed.status}`);
    }
  }
}

const samples: { at: number; rss: number; open: number }[] = [];
const started = performance.now();
const sampler = (async () => {
  while (performance.now() < deadline) {
    samples.push({
      at: (performance.now() - started) / 1000,
      rss: await rssOf(pid),
      open: await openSessions(),
    });
    await pause(5000);
  }
})();
try {
  await Promise.all([
    ...Array.from({ length: SESSIONS }, (_, index) => clientLoop(index)),
    sampler,
  ]);
  await pause(IDLE_MS + 1500);
  const afterExpiry = await openSessions();
  for (const sample of samples)
    console.log(
      `  t=${sample.at.toFixed(0).padStart(3)} s  rss ${mb(sample.rss)} MB  open sessions ${sample.open}`,
    );
  const warm = samples.find((sample) => sample.at >= 15) ?? samples[0];
  const last = samples[samples.length - 1];
  console.log(
    `${SESSIONS} clients, ${SECONDS} s, idle expiry ${IDLE_MS} ms: ${created} sessions opened, ${steps} steps (${(steps / SECONDS).toFixed(0)}/s), ${abandoned} abandoned to expiry, errors ${errors}${errorSamples.length ? ` (${errorSamples.join(', ')})` : ''}`,
  );
  if (warm && last)
    console.log(
      `RSS at the end / at 15 s: ${(last.rss / warm.rss).toFixed(2)} (flat: about 1.0); max ${mb(Math.max(...samples.map((s) => s.rss)))} MB`,
    );
  console.log(
    `open sessions after the clients stopped and ${IDLE_MS} ms of idleness: ${afterExpiry} (goal 0)`,
  );
} finally {
  client.close();
  await child.stop();
}
