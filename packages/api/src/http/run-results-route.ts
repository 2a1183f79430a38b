import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import { RUN_RESULTS_PATH } from '@terrarium/schema';
import { runResults } from '../bench/run-results';
import { sendError } from './json-response';

/**
 * `GET /api/bench/results?run=ID[&history=1]`: the run's results as JSON lines (`RunResult`), one per unit,
 * streamed as they are read, so a run of any size downloads in bounded memory. A failure after
 * the first line ends the response without its last chunk: the client sees a broken download,
 * never a short file that looks whole.
 */
export async function respondToRunResults(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  store: Store,
): Promise<void> {
  request.resume();
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return sendError(response, 405, `${RUN_RESULTS_PATH} answers GET`);
  }
  const runId = url.searchParams.get('run') ?? '';
  if (runId === '') {
    return sendError(response, 400, 'run: required, the id of a bench run (…?run=ID)', [
      { field: 'run', message: 'required' },
    ]);
  }
  const run = await store.getBenchRun(runId);
  if (run === null) return sendError(response, 404, `run: no bench run ${runId}`);
  response.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': `attachment; filename="terrarium-run-${run.id}-results.jsonl"`,
    'cache-control': 'no-store',
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  const history = url.searchParams.get('history') === '1';
  for await (const result of runResults(store, run, { history })) {
    if (response.destroyed) return;
    if (!response.write(`${JSON.stringify(result)}\n`)) {
      await drainedOrClosed(response);
    }
  }
  response.end();
}

/** Resolves when the client has read what was written, or has gone. */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
