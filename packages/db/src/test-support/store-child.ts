/**
 * A second process for the data-folder and crash tests, run with `node --import tsx`.
 *   open-once OPTIONS_JSON       try to open the store; print {"ok":true} or {"error":{name,message}}
 *   hold OPTIONS_JSON            open the store, print "ready", wait to be killed
 *   import-and-hang OPTIONS_JSON start an import, add trajectories, print "ready", wait to be killed
 */
import { openStore } from '../open-store';
import type { StoreOptions } from '../store';
import { retailTrajectory } from '../testing';

function parseOptions(text: string | undefined): StoreOptions {
  const parsed: unknown = JSON.parse(text ?? '{}');
  if (typeof parsed !== 'object' || parsed === null) throw new Error('options must be an object');
  const options: StoreOptions = {};
  if ('dataDir' in parsed && typeof parsed.dataDir === 'string') options.dataDir = parsed.dataDir;
  if ('databaseUrl' in parsed && typeof parsed.databaseUrl === 'string') {
    options.databaseUrl = parsed.databaseUrl;
  }
  return options;
}

const [mode, optionsJson] = process.argv.slice(2);
const options = parseOptions(optionsJson);
const waitForever = () => setInterval(() => {}, 60_000);

if (mode === 'open-once') {
  try {
    const store = await openStore(options);
    await store.close();
    process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    process.stdout.write(`${JSON.stringify({ error: { name, message } })}\n`);
  }
} else if (mode === 'hold') {
  await openStore(options);
  process.stdout.write('ready\n');
  waitForever();
} else if (mode === 'import-and-hang') {
  const store = await openStore(options);
  const batch = await store.beginImport('crashy');
  await batch.addTrajectories([0, 1, 2, 3, 4].map(retailTrajectory));
  process.stdout.write('ready\n');
  waitForever();
} else {
  throw new Error(`unknown mode ${mode}`);
}
