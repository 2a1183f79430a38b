/**
 * One import in a process of its own, for import-throughput.ts: the peak resident size it prints
 * (the kernel's VmHWM, not a sampled guess) is then the import's alone, as a `terrarium import` run
 * would see it, without the benchmark's replica generator and baseline in the same heap.
 *
 *   tsx import-child.ts FILE '{"dataDir":"…"}' | '{"databaseUrl":"…"}'
 */
import { createReadStream, readFileSync } from 'node:fs';
import { openStore } from '@terrarium/db';
import { importFiles } from '@terrarium/api';

type Location = { dataDir: string } | { databaseUrl: string };

function parseLocation(text: string): Location {
  const value: unknown = JSON.parse(text);
  if (typeof value === 'object' && value !== null) {
    if ('dataDir' in value && typeof value.dataDir === 'string') return { dataDir: value.dataDir };
    if ('databaseUrl' in value && typeof value.databaseUrl === 'string') {
      return { databaseUrl: value.databaseUrl };
    }
  }
  throw new Error(`not a store location: ${text}`);
}

const [file, locationJson] = process.argv.slice(2);
if (file === undefined || locationJson === undefined) {
  throw new Error('usage: import-child.ts FILE LOCATION_JSON');
}
const location = parseLocation(locationJson);

function peakRssMb(): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
}

const started = performance.now();
const cpuStart = process.cpuUsage();
const store = await openStore(location);
let trajectories = 0;
try {
  const report = await importFiles(
    store,
    [{ name: file, chunks: createReadStream(file, { highWaterMark: 1 << 20 }) }],
    { dataset: 'bench' },
  );
  trajectories = report.trajectories;
} finally {
  await store.close();
}
const cpu = process.cpuUsage(cpuStart);
console.log(
  JSON.stringify({
    trajectories,
    ms: performance.now() - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssMb: peakRssMb(),
  }),
);
