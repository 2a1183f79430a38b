import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { localOwnerLink } from '../../packages/api/src/http/request-gate';

const REPO = resolve(import.meta.dirname, '../..');

export interface CliServer {
  url: string;
  /** The page at `path` by the link `serve` prints: it logs the browser in as the local owner. */
  ownerLink(path: string): string;
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
  const { url, token } = await new Promise<{ url: string; token: string }>((resolveUrl, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const running = /Terrarium is running at (http:\/\/\S+)/.exec(seen)?.[1];
      const printed = /Program token: (\S+)/.exec(seen)?.[1];
      if (running !== undefined && printed !== undefined)
        resolveUrl({ url: running, token: printed });
    });
    child.once('exit', (code) =>
      reject(new Error(`serve exited with code ${code} before listening`)),
    );
  });
  return {
    url,
    ownerLink: (path) => localOwnerLink(`${url}${path}`, token),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
