/**
 * The server of the reward benchmark, in its own process: the real API handler (bearer gate, an
 * in-memory store) and, on the same server, `POST /bare`, which reads and parses the JSON body like
 * a real route and answers a constant: the ceiling of any route here. Prints `{"port":N}`.
 */
import { createServer } from 'node:http';
import { createApiRequestHandler } from '@terrarium/api';
import { openStore } from '@terrarium/db';
import { TOKEN } from './env-server-load';

const BARE_ANSWER = JSON.stringify({ results: [{ score: 1, breakdown: [] }] });

const store = await openStore({ memory: true });
const answer = createApiRequestHandler({ store, token: TOKEN, allowedHosts: ['127.0.0.1'] });
const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  if (request.url === '/bare') {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      JSON.parse(Buffer.concat(parts).toString('utf8'));
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(BARE_ANSWER),
      });
      response.end(BARE_ANSWER);
    });
    return;
  }
  if (!answer(request, response)) response.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
