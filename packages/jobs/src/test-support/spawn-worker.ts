import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const CHILD = resolve(import.meta.dirname, 'worker-child.ts');
// `--import tsx` resolves from the working directory: the repository root has tsx installed.
const REPO_ROOT = resolve(import.meta.dirname, '../../../..');

export interface WorkerChild {
  pid: number;
  /** Lines printed so far. */
  lines(): string[];
  /** Resolves with the first line (past or future) that matches. */
  waitForLine(predicate: (line: string) => boolean): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal(signal: NodeJS.Signals): void;
}

/** A child process running `script` (default worker-child.ts) with `args`, from TypeScript sources. */
export function spawnWorkerChild(args: string[], script: string = CHILD): WorkerChild {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not start the worker process');
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  const lines = () => stdout.split('\n').filter((line) => line !== '');
  return {
    pid: child.pid,
    lines,
    exited,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitForLine(predicate) {
      return new Promise((done, fail) => {
        const check = () => {
          const line = lines().find(predicate);
          if (line === undefined) return;
          listeners.delete(check);
          done(line);
        };
        listeners.add(check);
        check();
        void exited.then(({ code, signal }) => {
          check();
          listeners.delete(check);
          fail(new Error(`worker exited (${code ?? signal}) before the line; stderr: ${stderr}`));
        });
      });
    },
  };
}
