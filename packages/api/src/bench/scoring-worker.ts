// A worker thread that scores bench predictions with the rule metrics (scoring-pool.ts): a tau2
// item's classification and scores cost about a millisecond of CPU, spent here on the second core
// while the server thread predicts, records and answers requests.
import { parentPort } from 'node:worker_threads';
import { classifyItem, scoreClassifiedItem, type ClassifiedItem } from '@terrarium/bench';
import { ScoringRequest, type ScoringReady, type ScoringReply } from './scoring-protocol';

const port = parentPort;
if (port === null) throw new Error('scoring-worker runs as a worker thread');

// A run scores each item once per simulator: its real observation is classified once.
const CLASSIFIED_KEPT = 2048;
const classified = new Map<string, ClassifiedItem>();

port.on('message', (message: unknown) => {
  const request = ScoringRequest.safeParse(message);
  if (!request.success) {
    const id = typeof message === 'object' && message !== null && 'id' in message ? message.id : -1;
    port.postMessage({ id: typeof id === 'number' ? id : -1, error: request.error.message });
    return;
  }
  const { id, item, sim, predicted } = request.data;
  let reply: ScoringReply;
  try {
    let entry = classified.get(item.id);
    if (entry === undefined) {
      if (classified.size >= CLASSIFIED_KEPT) classified.clear();
      entry = classifyItem(item);
      classified.set(item.id, entry);
    }
    reply = { id, scores: scoreClassifiedItem(entry, sim, predicted) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
const ready: ScoringReady = { ready: true };
port.postMessage(ready);
