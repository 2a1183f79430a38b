import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');

export interface CliServer {
  url: string;
  stop(): Promise<void>;
}

/** `terrarium serve` in a process of its own, so the server's work is not counted in this one. */
export async function serveDataDir(
  dataDir: string,
  serveOptions: readonly string[] = [],
): Promise<CliServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'apps/cli/src/main.ts',
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...serveOptions,
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolveUrl, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /Terrarium is running at (http:\/\/\S+)/.exec(seen);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.once('exit', (code) =>
      reject(new Error(`serve exited with code ${code} before listening`)),
    );
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
