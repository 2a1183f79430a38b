import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const CHILD = resolve(import.meta.dirname, 'store-child.ts');
// `--import tsx` resolves from the working directory: the repository root has tsx installed.
const REPO_ROOT = resolve(import.meta.dirname, '../../../..');

export interface StoreChild {
  process: ChildProcess;
  pid: number;
  /** Everything the child printed on stdout until it printed `line` (or exited). */
  waitForLine(predicate: (line: string) => boolean): Promise<string>;
  exited: Promise<number | null>;
  kill(): Promise<void>;
}

export function spawnStoreChild(mode: string, options: object): StoreChild {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, JSON.stringify(options)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not start the child process');
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const listener of listeners) listener();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    process: child,
    pid: child.pid,
    exited,
    waitForLine(predicate) {
      return new Promise((done, fail) => {
        const check = () => {
          const line = stdout.split('\n').find(predicate);
          if (line !== undefined) {
            listeners.delete(check);
            done(line);
          }
        };
        listeners.add(check);
        check();
        void exited.then((code) => {
          check();
          fail(new Error(`child exited with ${code} before the expected line; stderr: ${stderr}`));
        });
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
