/**
 * One server for the env-server benchmarks, in its own process so that it gets a core of its own
 * like the Python server does: `--mode terrarium` (the real API handler behind the bearer gate, on
 * an in-memory store) or `--mode bare` (node:http answering the step contract with a constant, the
 * ceiling of any Node server). Prints `{"port":N}` once listening.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createApiRequestHandler, createDefaultEnvService } from '@terrarium/api';
import { openStore } from '@terrarium/db';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'terrarium' },
    token: { type: 'string', default: 'bench-token' },
    'idle-ms': { type: 'string', default: '600000' },
    'max-sessions': { type: 'string', default: '4096' },
  },
});

const STEP_ANSWER = JSON.stringify({
  observation: 'alpha\nbravo\n',
  reward: 0,
  terminated: false,
  truncated: false,
  info: { steps: 1, exitCode: 0, provenance: 'executed' },
});

async function main(): Promise<void> {
  let handler: (
    request: import('node:http').IncomingMessage,
    response: import('node:http').ServerResponse,
  ) => void;
  if (values.mode === 'bare') {
    let next = 0;
    handler = (request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        // Parse like a real server would, so the baseline pays for JSON too.
        if (parts.length > 0) JSON.parse(Buffer.concat(parts).toString('utf8'));
        const body =
          request.url === '/v1/envs'
            ? JSON.stringify({ id: `s${(next += 1)}`, observation: '', tools: [] })
            : STEP_ANSWER;
        response.writeHead(request.method === 'DELETE' ? 204 : 200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': request.method === 'DELETE' ? 0 : Buffer.byteLength(body),
        });
        response.end(request.method === 'DELETE' ? undefined : body);
      });
    };
  } else {
    const store = await openStore({ memory: true });
    const answer = createApiRequestHandler({
      store,
      token: values.token,
      allowedHosts: ['127.0.0.1'],
      env: createDefaultEnvService({
        idleTimeoutMs: Number(values['idle-ms']),
        maxSessions: Number(values['max-sessions']),
        sweepIntervalMs: Math.min(1000, Number(values['idle-ms'])),
      }),
    });
    handler = (request, response) => {
      if (!answer(request, response)) response.writeHead(404).end();
    };
  }
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

await main();
