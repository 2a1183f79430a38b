/**
 * Benchmark (a) of issue 2: importing ≥ 1 GB of real trajectories, replicated with fresh ids, against
 * a bare JSON.parse of the same bytes, with peak RSS. Prints ratios measured in this one run.
 *
 *   pnpm --filter @terrarium/benchmarks import [--mb 1024] [--store] [--postgres] [--keep] [--no-reader]
 *
 * `--store` imports into embedded PGlite in a temp folder; `--postgres` into the server at
 * TEST_DATABASE_URL (scripts/pg-test-server.sh starts one). Each import runs in a process of its
 * own (import-child.ts), whose peak RSS is the kernel's high-water mark. Each ratio is printed twice:
 * wall time, and the importing process's CPU time, which the other loads of a shared machine disturb
 * less (PGlite runs in that process; PostgreSQL's own CPU is not in it, so there only the wall ratio
 * counts).
 *
 * The replica is a single tau-bench v1 JSON array (the format of the real file, one huge array), so the
 * importer must stream it. The baseline reads the same file in the same chunks and JSON.parses each
 * element at offsets the generator recorded: the cheapest possible way to turn those bytes into objects.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readTrajectories } from '@terrarium/formats';
import { countTransitions } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';

// The repository ships this file (demo/data/tau-bench-airline), so the bench runs in any clone.
const SOURCE = sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json');
const CHUNK = 1 << 20;
const execFileAsync = promisify(execFile);

const args = process.argv.slice(2);
const targetMb = Number(args[args.indexOf('--mb') + 1] ?? 1024) || 1024;
const withStore = args.includes('--store');
const withPostgres = args.includes('--postgres');
const keep = args.includes('--keep');
// Skips the importer-only pass (formats alone, no store) to save time on a long store run.
const readerPass = !args.includes('--no-reader');

interface Replica {
  file: string;
  bytes: number;
  /** [start, end) byte offsets of each element, for the baseline. */
  offsets: Float64Array;
}

async function writeReplica(dir: string): Promise<Replica> {
  const original: unknown = JSON.parse(readFileSync(SOURCE, 'utf8'));
  if (!Array.isArray(original)) throw new Error(`${SOURCE}: expected a JSON array`);
  const file = join(dir, `tau-bench-airline-x.json`);
  const out = createWriteStream(file);
  const offsets: number[] = [];
  let position = 0;
  const write = async (text: string) => {
    const buffer = Buffer.from(text, 'utf8');
    position += buffer.length;
    if (!out.write(buffer)) await once(out, 'drain');
  };
  await write('[\n');
  const target = targetMb * 1024 * 1024;
  const replicaComplete = () => position >= target;
  let copy = 0;
  while (!replicaComplete()) {
    for (const record of original) {
      // Fresh ids: a new trial number and suffixed tool-call ids per copy.
      const text = JSON.stringify(record)
        .replace(/"trial":(\d+)/, (_m, trial: string) => `"trial":${Number(trial) + 4 * copy}`)
        .replace(/"(call_[A-Za-z0-9]+)"/g, (_m, id: string) => `"${id}_${copy}"`);
      if (offsets.length > 0) await write(',\n');
      offsets.push(position, position + Buffer.byteLength(text));
      await write(text);
      if (replicaComplete()) break;
    }
    copy++;
  }
  await write('\n]\n');
  out.end();
  await once(out, 'finish');
  return { file, bytes: position, offsets: Float64Array.from(offsets) };
}

class PeakRss {
  peak = 0;
  private timer: NodeJS.Timeout | undefined;
  start() {
    this.peak = process.memoryUsage.rss();
    this.timer = setInterval(() => {
      this.peak = Math.max(this.peak, process.memoryUsage.rss());
    }, 20);
    return this;
  }
  stop() {
    clearInterval(this.timer);
    this.peak = Math.max(this.peak, process.memoryUsage.rss());
    return this.peak;
  }
}

async function baseline(replica: Replica): Promise<number> {
  let element = 0;
  let pending: Buffer = Buffer.alloc(0);
  let pendingStart = 0;
  let parsed = 0;
  for await (const chunk of createReadStream(replica.file, { highWaterMark: CHUNK })) {
    if (!Buffer.isBuffer(chunk)) throw new Error('expected bytes');
    const buffer = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    const end = pendingStart + buffer.length;
    let consumed = 0;
    while (element * 2 < replica.offsets.length) {
      const from = replica.offsets[element * 2] ?? 0;
      const to = replica.offsets[element * 2 + 1] ?? 0;
      if (to > end) break;
      JSON.parse(buffer.toString('utf8', from - pendingStart, to - pendingStart));
      parsed++;
      element++;
      consumed = to - pendingStart;
    }
    pending = buffer.subarray(consumed);
    pendingStart += consumed;
  }
  return parsed;
}

async function readOnly(replica: Replica) {
  let trajectories = 0;
  let transitions = 0;
  let quarantined = 0;
  for await (const event of readTrajectories(
    createReadStream(replica.file, { highWaterMark: CHUNK }),
    {
      fileName: replica.file,
    },
  )) {
    if (event.type === 'trajectory') {
      trajectories++;
      transitions += countTransitions(event.trajectory);
    } else if (event.type === 'quarantine') quarantined++;
    else if (event.type === 'fatal') throw new Error(event.error.reason);
  }
  return { trajectories, transitions, quarantined };
}

interface ChildImport {
  trajectories: number;
  ms: number;
  cpuMs: number;
  peakRssMb: number;
}

function isChildImport(value: unknown): value is ChildImport {
  return (
    typeof value === 'object' &&
    value !== null &&
    'trajectories' in value &&
    typeof value.trajectories === 'number' &&
    'ms' in value &&
    typeof value.ms === 'number' &&
    'cpuMs' in value &&
    typeof value.cpuMs === 'number' &&
    'peakRssMb' in value &&
    typeof value.peakRssMb === 'number'
  );
}

/** The import in a child process (import-child.ts says why); its own clock, CPU and peak RSS. */
async function intoStore(
  replica: Replica,
  location: { dataDir: string } | { databaseUrl: string },
): Promise<ChildImport> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, 'import-child.ts'),
      replica.file,
      JSON.stringify(location),
    ],
    { cwd: import.meta.dirname, maxBuffer: 1 << 20 },
  );
  const result: unknown = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  if (!isChildImport(result)) throw new Error(`unexpected child output: ${stdout}`);
  return result;
}

async function timed<T>(run: () => Promise<T>) {
  globalThis.gc?.();
  const rss = new PeakRss().start();
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const result = await run();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  return { result, ms, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb: rss.stop() / 2 ** 20 };
}

const dir = join(tmpdir(), `terrarium-bench-import-${process.pid}`);
mkdirSync(dir, { recursive: true });
try {
  console.log(`writing a ${targetMb} MB replica of ${SOURCE} …`);
  const replica = await writeReplica(dir);
  const mb = replica.bytes / 2 ** 20;
  console.log(`replica: ${mb.toFixed(0)} MB, ${replica.offsets.length / 2} trajectories`);

  const base = await timed(() => baseline(replica));
  console.log(
    `baseline JSON.parse: ${base.result} elements in ${(base.ms / 1000).toFixed(1)} s (${(mb / (base.ms / 1000)).toFixed(0)} MB/s), peak RSS ${base.peakRssMb.toFixed(0)} MB`,
  );

  if (readerPass) {
    const read = await timed(() => readOnly(replica));
    console.log(
      `importer (detect, stream, validate, convert): ${read.result.trajectories} trajectories, ${read.result.transitions} transitions, ${read.result.quarantined} quarantined in ${(read.ms / 1000).toFixed(1)} s, peak RSS ${read.peakRssMb.toFixed(0)} MB`,
    );
    console.log(
      `RATIO importer / JSON.parse = ${(read.ms / base.ms).toFixed(2)}x (goal ≤ 2.0x); peak RSS ${read.peakRssMb.toFixed(0)} MB (goal < 400 MB)`,
    );
  }

  const targets: { label: string; location: { dataDir: string } | { databaseUrl: string } }[] = [];
  if (withStore)
    targets.push({ label: 'embedded PGlite', location: { dataDir: join(dir, 'store') } });
  if (withPostgres) {
    const databaseUrl = process.env['TEST_DATABASE_URL'];
    if (!databaseUrl) throw new Error('--postgres needs TEST_DATABASE_URL');
    targets.push({ label: 'PostgreSQL', location: { databaseUrl } });
  }
  for (const { label, location } of targets) {
    const stored = await intoStore(replica, location);
    const name = label.split(' ').at(-1);
    console.log(
      `import into ${label} (own process): ${stored.trajectories} trajectories in ${(stored.ms / 1000).toFixed(1)} s (${(mb / (stored.ms / 1000)).toFixed(1)} MB/s), peak RSS ${stored.peakRssMb.toFixed(0)} MB`,
    );
    console.log(
      `RATIO import-into-${name} / JSON.parse = ${(stored.ms / base.ms).toFixed(2)}x wall, ${(stored.cpuMs / base.cpuMs).toFixed(2)}x CPU of the importing process (goal ${name === 'PGlite' ? '≤ 3' : '≤ 2'}x); peak RSS ${stored.peakRssMb.toFixed(0)} MB (goal < 400 MB)`,
    );
  }
} finally {
  if (!keep && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}
