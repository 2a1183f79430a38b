/**
 * Issue 11 §4, executable worlds, in one run (~1-2 min):
 *   (1) fork cost of a terminal world with a 1 MB workspace (goal < 1 ms), against copying the
 *       workspace (every file's bytes) — the baseline a world without copy-on-write pays;
 *   (2) in-process rollouts with a scripted policy on a reconstructed terminal world (goal
 *       1,000,000 steps in < 60 s on 2 cores): steps/s with the transition memo (default) and with
 *       every action run by the shell (`memoize: false`), and their ratio.
 *
 *   cd /work/main && node --import tsx benchmarks/world-rollouts.ts [--steps 1000000] [--raw-steps 3000]
 *
 * The world is rebuilt from the real SWE-agent humanevalfix trajectory (MIT, ../shared/data) plus
 * generated files up to the size asked; the policy is a fixed cycle of reads and writes, reset
 * every 8 steps as an RL rollout would (so episodes revisit states, which is what the memo serves).
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Action } from '@terrarium/schema';
import {
  createTerminalWorld,
  reconstructWorkspace,
  type Workspace,
} from '@terrarium/executable-worlds';
import { readTrajectoryFile } from '@terrarium/executable-worlds/testing';
import { sharedDataPath } from '@terrarium/schema/testing';

const args = process.argv.slice(2);
function numberArg(name: string, fallback: number): number {
  const at = args.indexOf(name);
  const value = at === -1 ? Number.NaN : Number(args[at + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const bash = (command: string): Action => ({ type: 'command', command, interpreter: 'bash' });

/** The reconstructed SWE-agent workspace padded with generated files to `bytes` in total. */
async function workspaceOf(bytes: number): Promise<Workspace> {
  const file = sharedDataPath(
    'swe-agent/trajectories/demonstrations/human_thought__swe-bench-HumanEvalFix-python__lcb__t-0.00__p-0.95__c-4.00__install-0/humanevalfix-python-0.traj',
  );
  const [trajectory] = await readTrajectoryFile(file);
  if (trajectory === undefined) throw new Error(`no trajectory in ${file}`);
  const base = reconstructWorkspace(trajectory);
  const line = 'x = compute(value, other) # padding line of a generated module\n';
  const perFile = 4096;
  const body = line.repeat(Math.ceil(perFile / line.length)).slice(0, perFile);
  const entries = [...base.entries];
  for (let i = 0; i * perFile < bytes; i++) {
    entries.push({ path: `${base.cwd}/pkg${i % 16}/mod${i}.py`, content: body });
  }
  return { ...base, entries };
}

const POLICY = [
  'ls',
  'cat main.py',
  'echo step >> log.txt',
  'wc -l log.txt',
  'grep -c x pkg0/mod0.py',
  'ls pkg1 | head -3',
  'cat log.txt',
  'pwd',
];

async function rollouts(workspace: Workspace, steps: number, memoize: boolean): Promise<number> {
  const world = createTerminalWorld('bench', workspace, { memoize });
  const started = performance.now();
  for (let i = 0; i < steps; i++) {
    if (i % POLICY.length === 0) await world.reset();
    await world.step(bash(POLICY[i % POLICY.length] ?? 'pwd'));
  }
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function forkCost(workspace: Workspace) {
  const world = createTerminalWorld('fork', workspace);
  await world.step(bash('echo warm > w.txt'));
  const forkTimes: number[] = [];
  for (let round = 0; round < 2000; round++) {
    const started = performance.now();
    world.fork();
    forkTimes.push(performance.now() - started);
  }
  // Baseline: what a fork costs without copy-on-write — every file's bytes copied.
  const encoded = workspace.entries.map((entry) => ({
    path: entry.path,
    bytes: entry.content === null ? null : new TextEncoder().encode(entry.content),
  }));
  const copyTimes: number[] = [];
  for (let round = 0; round < 200; round++) {
    const started = performance.now();
    const copy = new Map<string, Uint8Array | null>();
    for (const entry of encoded)
      copy.set(entry.path, entry.bytes === null ? null : entry.bytes.slice());
    copyTimes.push(performance.now() - started);
  }
  // A fork then one step the shell runs (no memo): what a branching rollout pays at worst, since
  // the fork makes its shell on first use.
  const cold = createTerminalWorld('fork-cold', workspace, { memoize: false });
  await cold.step(bash('echo warm > w.txt'));
  const forkStepTimes: number[] = [];
  for (let round = 0; round < 30; round++) {
    const started = performance.now();
    await cold.fork().step(bash('echo branch >> w.txt'));
    forkStepTimes.push(performance.now() - started);
  }
  return { fork: median(forkTimes), copy: median(copyTimes), forkStep: median(forkStepTimes) };
}

/** One rollout process (a child of this script): prints its elapsed ms. */
function child(steps: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(steps)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.once('error', reject);
    proc.once('exit', (code) =>
      code === 0 ? resolve(Number(out.trim())) : reject(new Error(`child exited ${code}`)),
    );
  });
}

if (args[0] === '--child') {
  const ms = await rollouts(await workspaceOf(1024 * 1024), Number(args[1]), true);
  process.stdout.write(`${ms}\n`);
} else {
  const steps = numberArg('--steps', 1_000_000);
  const rawSteps = numberArg('--raw-steps', 3000);
  const workspace = await workspaceOf(1024 * 1024);
  const size = workspace.entries.reduce((total, entry) => total + (entry.content?.length ?? 0), 0);
  process.stdout.write(
    `machine: ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n` +
      `workspace: ${workspace.entries.length} entries, ${(size / 1024 / 1024).toFixed(2)} MB\n`,
  );
  const fork = await forkCost(workspace);
  process.stdout.write(
    `(1) fork: ${(fork.fork * 1000).toFixed(1)} µs (goal < 1000 µs); copying the workspace: ` +
      `${(fork.copy * 1000).toFixed(1)} µs; copy / fork = ${(fork.copy / fork.fork).toFixed(1)}×; ` +
      `fork + first step: ${fork.forkStep.toFixed(2)} ms\n`,
  );
  const rawMs = await rollouts(workspace, rawSteps, false);
  const rawRate = (rawSteps / rawMs) * 1000;
  process.stdout.write(
    `(2) shell only (memoize: false): ${rawSteps} steps in ${(rawMs / 1000).toFixed(2)} s = ${rawRate.toFixed(0)} steps/s\n`,
  );
  // One process per core: in-process worlds are single-threaded, so rollouts scale by processes.
  const workers = Math.min(2, cpus().length);
  const started = performance.now();
  const perWorker = Math.ceil(steps / workers);
  await Promise.all(Array.from({ length: workers }, () => child(perWorker)));
  const wallMs = performance.now() - started;
  const rate = ((perWorker * workers) / wallMs) * 1000;
  process.stdout.write(
    `    memoized, ${workers} workers: ${perWorker * workers} steps in ${(wallMs / 1000).toFixed(1)} s wall ` +
      `(goal < 60 s) = ${rate.toFixed(0)} steps/s; memoized / shell-only = ${(rate / rawRate).toFixed(0)}×\n`,
  );
}
