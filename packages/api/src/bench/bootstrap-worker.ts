// A worker thread that runs leaderboard bootstraps (run-intervals.ts): a large run's resampling
// takes seconds of CPU, which here is spent on the second core, never on the server's event loop.
import { parentPort } from 'node:worker_threads';
import { groupIntervals } from '@terrarium/bench';
import { BootstrapRequest, type BootstrapReply } from './bootstrap-protocol';

const port = parentPort;
if (port === null) throw new Error('bootstrap-worker runs as a worker thread');

port.on('message', (message: unknown) => {
  let reply: BootstrapReply;
  try {
    const request = BootstrapRequest.parse(message);
    reply = {
      intervals: request.groups.map((group) => {
        const strata = new Map(request.tasks.map((task, t) => [task, group.strata[t] ?? []]));
        const options = { bootstrap: request.bootstrap, seed: request.seed };
        return [...groupIntervals(request.tasks, strata, options)].map(
          ([task, interval]): [string, number | null, number | null] => [
            task,
            interval.low,
            interval.high,
          ],
        );
      }),
    };
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
