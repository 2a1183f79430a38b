import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';

/** Shared by the env-server benchmarks: child servers, a keep-alive JSON client, percentiles. */

export const TOKEN = 'bench-token';

export interface Child {
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
}

/** `node --import tsx env-server-child.ts …`, resolved once it prints its port. */
export function startNodeChild(args: string[]): Promise<Child> {
  // BENCH_NODE_FLAGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", to profile the server.
  const flags = (process.env['BENCH_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...flags, '--import', 'tsx', 'env-server-child.ts', ...args],
    {
      cwd: import.meta.dirname,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
    child.stdout?.once('data', (chunk: Buffer) => {
      const parsed: unknown = JSON.parse(chunk.toString('utf8'));
      const port =
        typeof parsed === 'object' && parsed !== null && 'port' in parsed
          ? Number(parsed.port)
          : NaN;
      resolve({ port, process: child, stop: stopper(child) });
    });
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The FastAPI port under uvicorn (one worker, like the one Node process). */
export async function startPythonChild(): Promise<Child> {
  const port = await freePort();
  const child = spawn(
    'python3',
    [
      '-m',
      'uvicorn',
      'env_server:app',
      '--app-dir',
      'python',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--log-level',
      'warning',
    ],
    {
      cwd: import.meta.dirname,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, ENV_TOKEN: TOKEN },
    },
  );
  const client = new JsonClient(port);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ok = await client.call('DELETE', '/v1/envs/none').then(
      (answer) => answer.status === 404,
      () => false,
    );
    if (ok) return { port, process: child, stop: stopper(child) };
  }
  throw new Error('uvicorn did not start (pip install fastapi uvicorn)');
}

export class JsonClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 512 });
  constructor(readonly port: number) {}

  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{
    status: number;
    json: unknown;
    headers: Record<string, string | string[] | undefined>;
  }> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${TOKEN}`,
            ...(text === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
          },
        },
        (incoming) => {
          const parts: Buffer[] = [];
          incoming.on('data', (part: Buffer) => parts.push(part));
          incoming.on('end', () => {
            const raw = Buffer.concat(parts).toString('utf8');
            resolve({
              status: incoming.statusCode ?? 0,
              json: raw === '' ? null : JSON.parse(raw),
              headers: incoming.headers,
            });
          });
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export function idOf(json: unknown): string {
  if (typeof json === 'object' && json !== null && 'id' in json && typeof json.id === 'string')
    return json.id;
  throw new Error(`no session id in ${JSON.stringify(json)}`);
}

export function observationOf(json: unknown): string {
  if (
    typeof json === 'object' &&
    json !== null &&
    'observation' in json &&
    typeof json.observation === 'string'
  ) {
    return json.observation;
  }
  throw new Error(`no observation in ${JSON.stringify(json)}`);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** RSS of a process in bytes, from /proc (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** CPU time (user + system) a process has used, in milliseconds, from /proc (Linux, 100 Hz ticks). */
export async function cpuMsOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
