import { createServer, type Server } from 'node:http';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { actionText } from '@terrarium/fidelity';
import { Action } from '@terrarium/schema';
import { krippendorffAlpha } from '@terrarium/labels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchWorkers } from '../bench/bench-workers';
import { finishedAirlineRun } from '../testing/airline-run';
import { startTestServer, type TestServer } from '../testing/test-server';

const LABELERS = ['ana', 'bo', 'cy', 'dee', 'eli'];
const QUEUE_ITEMS = 12;
const PER_ITEM = 3;

interface Caller {
  query(procedure: string, input: unknown): Promise<{ status: number; data: unknown }>;
  mutate(procedure: string, input: unknown): Promise<{ status: number; data: unknown }>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value.a.b…`, or undefined when the path does not exist. */
function at(value: unknown, ...keys: (string | number)[]): unknown {
  let current = value;
  for (const key of keys) {
    if (Array.isArray(current) && typeof key === 'number') current = current[key];
    else if (isRecord(current) && typeof key === 'string') current = current[key];
    else return undefined;
  }
  return current;
}

/** tRPC over plain HTTP, as the web client sends it (no batching, no transformer). */
async function answer(response: Response): Promise<{ status: number; data: unknown }> {
  const body: unknown = await response.json();
  // A procedure's null answer is `{result:{data:null}}`; errors come as `{error}`.
  const result = at(body, 'result');
  return { status: response.status, data: isRecord(result) ? result['data'] : body };
}

function caller(server: TestServer, headers: Record<string, string>): Caller {
  return {
    async query(procedure, input) {
      const query = new URLSearchParams({ input: JSON.stringify(input) });
      return answer(await fetch(`${server.url}/trpc/${procedure}?${query}`, { headers }));
    },
    async mutate(procedure, input) {
      return answer(
        await fetch(`${server.url}/trpc/${procedure}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', origin: server.url },
          body: JSON.stringify(input),
        }),
      );
    },
  };
}

function num(value: unknown): number {
  if (typeof value !== 'number') throw new Error(`expected a number, got ${JSON.stringify(value)}`);
  return value;
}

function str(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`expected a string, got ${JSON.stringify(value)}`);
  return value;
}

describe('label queues over HTTP, on a retrieval run over tau2 airline', () => {
  let store: Store;
  let workers: BenchWorkers;
  let server: TestServer;
  let program: Caller;
  let runId: string;
  const sessions = new Map<string, Caller>();

  beforeAll(async () => {
    store = await openMemoryStore();
    ({ workers, runId } = await finishedAirlineRun(store, ['retrieval']));
    server = await startTestServer({ store });
    program = caller(server, server.authHeaders);
    await server.addUser('res', 'researcher');
    sessions.set('res', caller(server, await server.login('res')));
    for (const name of LABELERS) {
      await server.addUser(name, 'labeler');
      sessions.set(name, caller(server, await server.login(name)));
    }
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    await workers?.stop();
    await store?.close();
  });

  function session(name: string): Caller {
    const found = sessions.get(name);
    if (found === undefined) throw new Error(`no session ${name}`);
    return found;
  }

  async function newQueue(name: string, blind = true): Promise<string> {
    const created = await session('res').mutate('labels.createQueue', {
      name,
      runId,
      selection: { kind: 'random', count: QUEUE_ITEMS, seed: 11 },
      labelsPerItem: PER_ITEM,
      blind,
      leaseSeconds: 60,
    });
    expect(created.status).toBe(200);
    expect(at(created.data, 'items')).toBe(QUEUE_ITEMS);
    return str(at(created.data, 'id'));
  }

  it('gives each item exactly N labels with 5 labelers at once, never leasing one item twice', async () => {
    const queueId = await newQueue('concurrent');
    const holders = new Map<number, string>();
    const overlaps: string[] = [];
    const events: string[] = [];

    async function work(name: string): Promise<number> {
      const me = session(name);
      let submitted = 0;
      let first = true;
      for (;;) {
        const next = await me.mutate('labels.next', { queueId });
        expect(next.status).toBe(200);
        if (next.data === null) return submitted;
        const ordinal = num(at(next.data, 'lease', 'ordinal'));
        const holder = holders.get(ordinal);
        if (holder !== undefined && holder !== name) overlaps.push(`${ordinal}: ${holder}+${name}`);
        holders.set(ordinal, name);
        const beat = await me.mutate('labels.heartbeat', { queueId, ordinal });
        expect(at(beat.data, 'lost')).toBe(false);
        // Clear before the server releases: whoever gets the item next cannot see a stale holder.
        holders.delete(ordinal);
        if (first && name === 'ana') {
          first = false;
          const skipped = await me.mutate('labels.skip', { queueId, ordinal });
          events.push(`ana skips: ${String(at(skipped.data, 'skipped'))}`);
          continue;
        }
        if (first && name === 'bo') {
          first = false;
          const released = await me.mutate('labels.release', { queueId, ordinal });
          events.push(`bo leaves: ${String(at(released.data, 'released'))}`);
          continue;
        }
        first = false;
        const done = await me.mutate('labels.submit', {
          queueId,
          ordinal,
          scores: { format: 5, factuality: (ordinal % 5) + 1, realism: 4 },
          comment: `${name} on ${ordinal}`,
        });
        expect(done.status).toBe(200);
        submitted += 1;
      }
    }

    const counts = await Promise.all(LABELERS.map(work));
    expect(overlaps).toEqual([]);
    expect(events.toSorted()).toEqual(['ana skips: true', 'bo leaves: true']);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(QUEUE_ITEMS * PER_ITEM);

    const items = await program.query('labels.items', { queueId });
    const states = Array.isArray(items.data) ? items.data : [];
    expect(states.map((state) => at(state, 'labelCount'))).toEqual(
      Array.from({ length: QUEUE_ITEMS }, () => PER_ITEM),
    );
    expect(states.every((state) => at(state, 'leasedBy') === null)).toBe(true);
    const labels = await program.query('labels.labels', { queueId });
    const rows = Array.isArray(labels.data) ? labels.data : [];
    expect(rows).toHaveLength(QUEUE_ITEMS * PER_ITEM);
    const pairs = new Set(
      rows.map((row) => `${str(at(row, 'itemId'))}/${str(at(row, 'labelerName'))}`),
    );
    expect(pairs.size).toBe(QUEUE_ITEMS * PER_ITEM);
    const queue = await program.query('labels.queue', { queueId });
    expect(at(queue.data, 'completeItems')).toBe(QUEUE_ITEMS);
  }, 120_000);

  it('shows a labeler the item, the prediction and the criteria, but nothing of others when blind', async () => {
    const blindQueue = await newQueue('blind');
    await program.mutate('labels.importJsonl', {
      queueId: blindQueue,
      text: '',
    });
    const first = await session('ana').mutate('labels.next', { queueId: blindQueue });
    const ordinal = num(at(first.data, 'lease', 'ordinal'));
    expect(at(first.data, 'item', 'task')).toBe('tau2-bench/airline');
    expect(typeof at(first.data, 'item', 'real', 'content')).toBe('string');
    expect(at(first.data, 'prediction', 'error')).toBeNull();
    expect(at(first.data, 'queue', 'criteria', 0, 'id')).toBe('format');
    await session('ana').mutate('labels.submit', {
      queueId: blindQueue,
      ordinal,
      scores: { format: 2 },
    });
    const second = await session('bo').mutate('labels.next', { queueId: blindQueue });
    expect(at(second.data, 'lease', 'ordinal')).toBe(ordinal);
    expect(at(second.data, 'scores')).toBeNull();
    expect(at(second.data, 'otherLabels')).toBeNull();
    // A labeler reads only their own labels and cannot export or adjudicate.
    const own = await session('bo').query('labels.labels', { queueId: blindQueue });
    expect(own.data).toEqual([]);
    expect((await session('bo').query('labels.exportJsonl', { queueId: blindQueue })).status).toBe(
      403,
    );
    expect(
      (
        await session('bo').mutate('labels.adjudicate', {
          queueId: blindQueue,
          ordinal,
          criterion: 'format',
          value: 3,
        })
      ).status,
    ).toBe(403);
    // Nor does the queue itself say whose predictions they grade (walk 41: `sim` named the oracle);
    // a researcher still reads it.
    const seen = await session('bo').query('labels.queue', { queueId: blindQueue });
    expect([at(seen.data, 'sim'), at(seen.data, 'runId'), at(seen.data, 'selection')]).toEqual([
      null,
      null,
      null,
    ]);
    const listed = await session('bo').query('labels.queues', {});
    const inList = Array.isArray(listed.data)
      ? listed.data.find((queue) => at(queue, 'id') === blindQueue)
      : undefined;
    expect([at(inList, 'sim'), at(inList, 'runId')]).toEqual([null, null]);
    expect(
      at((await session('res').query('labels.queue', { queueId: blindQueue })).data, 'sim'),
    ).toBe('retrieval');

    // Outside blind mode the same view carries the other labels.
    const open = await newQueue('open', false);
    const a = await session('cy').mutate('labels.next', { queueId: open });
    const openOrdinal = num(at(a.data, 'lease', 'ordinal'));
    await session('cy').mutate('labels.submit', {
      queueId: open,
      ordinal: openOrdinal,
      scores: { realism: 3 },
    });
    const b = await session('dee').mutate('labels.next', { queueId: open });
    expect(at(b.data, 'otherLabels')).toEqual([
      { labelerName: 'cy', scores: { realism: 3 }, comment: '', flagged: false },
    ]);
  }, 60_000);

  it('gives an item back to the queue when its labeler logs out, not when its lease expires', async () => {
    const queueId = await newQueue('logout');
    await server.addUser('fay', 'labeler');
    const fay = caller(server, await server.login('fay'));
    const leased = await fay.mutate('labels.next', { queueId });
    const ordinal = num(at(leased.data, 'lease', 'ordinal'));
    expect((await fay.mutate('auth.logout', {})).status).toBe(200);
    // The page's own release now comes too late: the session is gone.
    expect((await fay.mutate('labels.release', { queueId, ordinal })).status).toBe(401);
    // The queue offers the first item with labels still wanted: the one Fay held.
    const next = await session('ana').mutate('labels.next', { queueId });
    expect(at(next.data, 'lease', 'ordinal')).toBe(ordinal);
  });

  it('offers a skipped item again once its labeler takes the skip back, and counts it meanwhile', async () => {
    const queueId = await newQueue('skips');
    const first = await session('bo').mutate('labels.next', { queueId });
    const ordinal = num(at(first.data, 'lease', 'ordinal'));
    expect((await session('bo').mutate('labels.skip', { queueId, ordinal })).data).toEqual({
      skipped: true,
    });
    expect((await session('bo').query('labels.skips', { queueId })).data).toEqual({ skipped: 1 });
    const queue = await session('res').query('labels.queue', { queueId });
    expect([at(queue.data, 'completeItems'), at(queue.data, 'skippedItems')]).toEqual([0, 1]);
    // Not offered to Bo again: he gets the next item.
    const second = await session('bo').mutate('labels.next', { queueId });
    expect(at(second.data, 'lease', 'ordinal')).toBe(ordinal + 1);
    await session('bo').mutate('labels.release', { queueId, ordinal: ordinal + 1 });
    expect((await session('bo').mutate('labels.takeBackSkips', { queueId })).data).toEqual({
      returned: 1,
    });
    expect((await session('bo').query('labels.skips', { queueId })).data).toEqual({ skipped: 0 });
    const again = await session('bo').mutate('labels.next', { queueId });
    expect(at(again.data, 'lease', 'ordinal')).toBe(ordinal);
  });

  it('deletes a queue with its labels for a researcher only, and then it is gone for everyone', async () => {
    const queueId = await newQueue('mistake');
    const lease = await session('bo').mutate('labels.next', { queueId });
    const ordinal = num(at(lease.data, 'lease', 'ordinal'));
    const scoresOf = { format: 4 };
    expect(
      (await session('bo').mutate('labels.submit', { queueId, ordinal, scores: scoresOf })).status,
    ).toBe(200);
    expect((await session('bo').mutate('labels.deleteQueue', { queueId })).status).toBe(403);
    const deleted = await session('res').mutate('labels.deleteQueue', { queueId });
    expect(deleted.data).toEqual({ deleted: true, labels: 1 });
    expect((await session('res').query('labels.queue', { queueId })).status).toBe(404);
    expect((await session('bo').mutate('labels.next', { queueId })).status).toBe(404);
    expect(await store.listLabels(queueId)).toEqual([]);
    expect((await session('res').mutate('labels.deleteQueue', { queueId })).status).toBe(404);
  });

  it('refuses scores off the scale, naming the criterion, and anonymous callers', async () => {
    const queueId = await newQueue('scale');
    const next = await session('eli').mutate('labels.next', { queueId });
    const ordinal = num(at(next.data, 'lease', 'ordinal'));
    const bad = await session('eli').mutate('labels.submit', {
      queueId,
      ordinal,
      scores: { format: 7 },
    });
    expect(bad.status).toBe(400);
    expect(at(bad.data, 'error', 'message')).toBe('scores.format: an integer from 1 to 5');
    // A queue assigned to ana: bo neither lists it nor leases from it.
    const assigned = await session('res').mutate('labels.createQueue', {
      name: 'for ana',
      runId,
      selection: { kind: 'random', count: 2, seed: 1 },
      labelers: ['ana'],
    });
    const assignedId = str(at(assigned.data, 'id'));
    const listed = await session('bo').query('labels.queues', {});
    const names = Array.isArray(listed.data) ? listed.data.map((queue) => at(queue, 'name')) : [];
    expect(names).not.toContain('for ana');
    expect((await session('bo').mutate('labels.next', { queueId: assignedId })).status).toBe(404);
    expect((await session('ana').mutate('labels.next', { queueId: assignedId })).status).toBe(200);
    const anonymous = caller(server, {});
    expect((await anonymous.mutate('labels.next', { queueId })).status).toBe(401);
  });

  /** A one-label-per-item queue over two items; its id. */
  async function smallQueue(name: string, extra: Record<string, unknown> = {}): Promise<string> {
    const created = await session('res').mutate('labels.createQueue', {
      name,
      runId,
      selection: { kind: 'random', count: 2, seed: 5 },
      ...extra,
    });
    expect(created.status).toBe(200);
    return str(at(created.data, 'id'));
  }

  /** Leases the caller's next item of the queue and labels it; the label's id. */
  async function labelNext(name: string, queueId: string, input: Record<string, unknown>) {
    const next = await session(name).mutate('labels.next', { queueId });
    const ordinal = num(at(next.data, 'lease', 'ordinal'));
    const submitted = await session(name).mutate('labels.submit', { queueId, ordinal, ...input });
    expect(submitted.status).toBe(200);
    return str(at(submitted.data, 'id'));
  }

  /** The label as stored, and its history, to compare before and after a refused edit. */
  async function storedState(queueId: string, labelId: string): Promise<string> {
    const label = (await store.listLabels(queueId)).find((entry) => entry.id === labelId);
    return JSON.stringify([label, await store.labelHistory(labelId)]);
  }

  it('edits a label only in its own queue, checked against that queue’s scales, changing only what is sent', async () => {
    const fivePoint = await smallQueue('edit: five points');
    // A queue whose `format` is scored on another scale: the scores of an edit naming it were once
    // checked against this scale and written to the label of the other queue.
    const negative = await smallQueue('edit: negative scale', {
      criteria: [{ id: 'format', text: 'Form', min: -100, max: -90, weight: 1 }],
    });
    const full = { format: 4, factuality: 3, consistency: 5, realism: 2, quality: 4 };
    const labelId = await labelNext('cy', fivePoint, {
      scores: full,
      comment: 'dates shifted',
      flagged: true,
    });
    const before = await storedState(fivePoint, labelId);

    const offScale = await session('cy').mutate('labels.edit', {
      queueId: fivePoint,
      labelId,
      scores: { format: -99 },
    });
    expect([offScale.status, at(offScale.data, 'error', 'message')]).toEqual([
      400,
      'scores.format: an integer from 1 to 5',
    ]);
    const unknownCriterion = await session('cy').mutate('labels.edit', {
      queueId: fivePoint,
      labelId,
      scores: { tone: 3 },
    });
    expect([unknownCriterion.status, at(unknownCriterion.data, 'error', 'message')]).toEqual([
      400,
      'scores.tone: no such criterion',
    ]);
    const wrongQueue = await session('cy').mutate('labels.edit', {
      queueId: negative,
      labelId,
      scores: { format: -99 },
    });
    expect([wrongQueue.status, at(wrongQueue.data, 'error', 'message')]).toEqual([
      404,
      `no label ${labelId} of yours in queue ${negative}`,
    ]);
    expect(await storedState(fivePoint, labelId)).toBe(before);

    // Another labeler's label is not theirs to edit, whatever queue they name.
    const notTheirs = await session('dee').mutate('labels.edit', {
      queueId: fivePoint,
      labelId,
      scores: { format: 1 },
    });
    expect([notTheirs.status, at(notTheirs.data, 'error', 'message')]).toEqual([
      404,
      `no label ${labelId} of yours in queue ${fivePoint}`,
    ]);
    expect(await storedState(fivePoint, labelId)).toBe(before);

    // An edit naming one criterion changes that one; comment and flag stay unless sent.
    const partial = await session('cy').mutate('labels.edit', {
      queueId: fivePoint,
      labelId,
      scores: { quality: 1 },
    });
    expect(partial.status).toBe(200);
    expect([
      at(partial.data, 'scores'),
      at(partial.data, 'comment'),
      at(partial.data, 'flagged'),
    ]).toEqual([{ ...full, quality: 1 }, 'dates shifted', true]);
    const cleared = await session('cy').mutate('labels.edit', {
      queueId: fivePoint,
      labelId,
      scores: { realism: null },
      comment: '',
      flagged: false,
    });
    expect([
      at(cleared.data, 'scores'),
      at(cleared.data, 'comment'),
      at(cleared.data, 'flagged'),
    ]).toEqual([{ ...full, quality: 1, realism: null }, '', false]);

    // The same edit again changes nothing, so nothing is written: the history keeps its events.
    const settled = await storedState(fivePoint, labelId);
    const repeated = await session('cy').mutate('labels.edit', {
      queueId: fivePoint,
      labelId,
      scores: { realism: null, format: 4 },
      comment: '',
    });
    expect([repeated.status, at(repeated.data, 'scores')]).toEqual([
      200,
      { ...full, quality: 1, realism: null },
    ]);
    expect(await storedState(fivePoint, labelId)).toBe(settled);
    expect((await store.labelHistory(labelId)).map((event) => event.action)).toEqual([
      'create',
      'edit',
      'edit',
    ]);
  });

  it('refuses an edit in a queue the labeler was taken off, leaving the label as it was', async () => {
    const queueId = await smallQueue('edit: assigned', { labelers: ['ana', 'eli'] });
    const labelId = await labelNext('eli', queueId, { scores: { format: 3 } });
    // No procedure changes a queue's labelers yet; the list is changed where it is kept.
    await store
      .jobDb()
      .executeSql(`UPDATE label_queues SET labelers = '["ana"]'::jsonb WHERE id = $1::bigint`, [
        queueId,
      ]);
    const before = await storedState(queueId, labelId);
    const refused = await session('eli').mutate('labels.edit', {
      queueId,
      labelId,
      scores: { format: 1 },
    });
    expect([refused.status, at(refused.data, 'error', 'message')]).toEqual([
      404,
      `no label queue ${queueId}`,
    ]);
    expect(await storedState(queueId, labelId)).toBe(before);
  });

  it('refuses a queue over a simulator the run did not use, naming the field', async () => {
    const created = await session('res').mutate('labels.createQueue', {
      name: 'over replay',
      runId,
      sim: 'replay',
    });
    expect([created.status, at(created.data, 'error', 'message')]).toEqual([
      400,
      "sim: name one of the run's simulators (retrieval)",
    ]);
    // A sample larger than the run would silently be all of it.
    const items = await session('res').query('labels.queues', {});
    // One simulator: the run's units are its items.
    const runItems = (await store.getBenchRun(runId))?.total;
    const tooMany = await session('res').mutate('labels.createQueue', {
      name: 'too many',
      runId,
      selection: { kind: 'random', count: 100_000, seed: 1 },
    });
    expect([tooMany.status, at(tooMany.data, 'error', 'message')]).toEqual([
      400,
      `selection.count: the run has ${runItems} items; ask for at most that many, or take all`,
    ]);
    expect((await session('res').query('labels.queues', {})).data).toEqual(items.data);
  });

  it('takes only one domain’s items when asked, and says when a rule set is written for another', async () => {
    const res = session('res');
    // One simulator: the run's units are its items, every one a tool item (tau2 airline).
    const runItems = (await store.getBenchRun(runId))?.total ?? 0;
    const before = (await res.query('labels.queues', {})).data;
    const none = await res.mutate('labels.createQueue', {
      name: 'terminal only',
      runId,
      selection: { kind: 'all', domain: 'terminal' },
    });
    expect([none.status, at(none.data, 'error', 'message')]).toEqual([
      400,
      `selection.domain: the run has no terminal items (it has ${runItems} tool)`,
    ]);
    const tooMany = await res.mutate('labels.createQueue', {
      name: 'too many tool items',
      runId,
      selection: { kind: 'random', count: runItems + 1, seed: 1, domain: 'tool' },
    });
    expect([tooMany.status, at(tooMany.data, 'error', 'message')]).toEqual([
      400,
      `selection.count: the run has ${runItems} tool items; ask for at most that many, or take all`,
    ]);
    expect((await res.query('labels.queues', {})).data).toEqual(before);

    const created = await res.mutate('labels.createQueue', {
      name: 'terminal criteria on tool items',
      runId,
      selection: { kind: 'random', count: 3, seed: 2, domain: 'tool' },
      ruleSet: { name: 'default-terminal' },
    });
    expect([
      created.status,
      at(created.data, 'items'),
      at(created.data, 'selection'),
      at(created.data, 'domains'),
      at(created.data, 'warnings'),
    ]).toEqual([
      200,
      3,
      { kind: 'random', count: 3, seed: 2, domain: 'tool' },
      { tool: 3 },
      [
        'default-terminal is written for terminal items, but all 3 queued items are tool items: its criteria may not mean there what they intend.',
      ],
    ]);
    // Criteria written for the run's own domain: nothing to say.
    const own = await res.mutate('labels.createQueue', {
      name: 'tool criteria on tool items',
      runId,
      selection: { kind: 'random', count: 3, seed: 2 },
      ruleSet: { name: 'default-tool' },
    });
    expect([own.status, at(own.data, 'domains'), at(own.data, 'warnings')]).toEqual([
      200,
      { tool: 3 },
      [],
    ]);
    for (const queue of [created, own]) {
      await res.mutate('labels.deleteQueue', { queueId: str(at(queue.data, 'id')) });
    }
  });

  async function createRefusal(labelers: string[], labelsPerItem: number) {
    const created = await session('res').mutate('labels.createQueue', {
      name: 'misnamed',
      runId,
      selection: { kind: 'random', count: 2, seed: 1 },
      labelsPerItem,
      labelers,
    });
    return [created.status, at(created.data, 'error', 'message')];
  }

  it('refuses a queue for labelers who have no account, or too few for its labels per item', async () => {
    expect(await createRefusal(['ana', 'bbo'], 1)).toEqual([
      400,
      'labelers: no account named bbo (add one under Accounts on the Labeling page, or with terrarium users add)',
    ]);
    expect(await createRefusal(['ana', 'ana'], 2)).toEqual([
      400,
      'labelsPerItem: 2 labels per item need as many labelers; 1 named',
    ]);
    const listed = await session('res').query('labels.queues', {});
    const names = Array.isArray(listed.data) ? listed.data.map((queue) => at(queue, 'name')) : [];
    expect(names).not.toContain('misnamed');
  });

  it('exports labels as JSONL and imports them into another queue, adjudications kept apart', async () => {
    const source = await newQueue('source');
    const next = await session('ana').mutate('labels.next', { queueId: source });
    const ordinal = num(at(next.data, 'lease', 'ordinal'));
    const itemId = str(at(next.data, 'item', 'id'));
    await session('ana').mutate('labels.submit', {
      queueId: source,
      ordinal,
      scores: { format: 4, quality: 2 },
      comment: 'order id differs',
    });
    const exported = await session('res').query('labels.exportJsonl', { queueId: source });
    const text = str(at(exported.data, 'text'));
    const lines = text
      .trim()
      .split('\n')
      .map((line): unknown => JSON.parse(line));
    expect(
      lines.map((line) => [
        at(line, 'item'),
        at(line, 'labeler'),
        at(line, 'criterion'),
        at(line, 'value'),
      ]),
    ).toEqual([
      [itemId, 'ana', 'format', 4],
      [itemId, 'ana', 'quality', 2],
    ]);
    const target = await newQueue('target');
    const imported = await session('res').mutate('labels.importJsonl', {
      queueId: target,
      text: `${text}{"item":"nope","labeler":"bo","criterion":"format","value":1}\nnot json\n`,
    });
    expect(imported.data).toEqual({
      imported: 1,
      added: 1,
      replaced: 0,
      unchanged: 0,
      adjudicated: 0,
      adjudicationsUnchanged: 0,
      unknownItems: ['nope'],
      errors: [{ line: 4, reason: 'not JSON' }],
    });
    const adjudicated = await session('res').mutate('labels.adjudicate', {
      queueId: target,
      ordinal,
      criterion: 'quality',
      value: 3,
      comment: 'between the two',
    });
    expect(at(adjudicated.data, 'researcherName')).toBe('res');
    const offScale = await session('res').mutate('labels.adjudicate', {
      queueId: target,
      ordinal,
      criterion: 'quality',
      value: 7,
    });
    expect([offScale.status, at(offScale.data, 'error', 'message')]).toEqual([
      400,
      'value: quality takes an integer from 1 to 5',
    ]);
    const labels = await session('res').query('labels.labels', { queueId: target });
    expect(at(labels.data, 0, 'scores')).toEqual({ format: 4, quality: 2 });
    expect(at(labels.data, 0, 'labelerName')).toBe('ana');
    expect(at(labels.data, 0, 'origin')).toBe('import');

    // The target's export carries the settled value, apart from the labels, and says where each
    // item comes from; read back in, it changes nothing (no second "ana", no second adjudication).
    const again = str(
      at((await session('res').query('labels.exportJsonl', { queueId: target })).data, 'text'),
    );
    const againLines = again
      .trim()
      .split('\n')
      .map((line): unknown => JSON.parse(line));
    expect(
      againLines.map((line) => [
        at(line, 'labeler'),
        at(line, 'criterion'),
        at(line, 'value'),
        at(line, 'adjudicated') ?? false,
      ]),
    ).toEqual([
      ['ana', 'format', 4, false],
      ['ana', 'quality', 2, false],
      ['res', 'quality', 3, true],
    ]);
    const run = await store.getBenchRun(runId);
    const [item] = run
      ? await store.getBenchItemsByIds({ name: run.bench, version: run.benchVersion }, [itemId])
      : [];
    const origin = [item?.task, item?.origin.trajectory, item?.origin.stepIndex];
    expect(origin[0]).toBe('tau2-bench/airline');
    expect(origin[1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(
      againLines.map((line) => [at(line, 'task'), at(line, 'trajectory'), at(line, 'stepIndex')]),
    ).toEqual([origin, origin, origin]);
    const readBack = await session('res').mutate('labels.importJsonl', {
      queueId: target,
      text: again,
    });
    expect(readBack.data).toEqual({
      imported: 0,
      added: 0,
      replaced: 0,
      unchanged: 1,
      adjudicated: 0,
      adjudicationsUnchanged: 1,
      unknownItems: [],
      errors: [],
    });
    const after = await session('res').query('labels.labels', { queueId: target });
    expect(Array.isArray(after.data) ? after.data.length : null).toBe(1);
    // Into the source queue: ana's label there is replaced by the same one, the value is settled.
    const intoSource = await session('res').mutate('labels.importJsonl', {
      queueId: source,
      text: again,
    });
    expect(intoSource.data).toEqual({
      imported: 0,
      added: 0,
      replaced: 0,
      unchanged: 1,
      adjudicated: 1,
      adjudicationsUnchanged: 0,
      unknownItems: [],
      errors: [],
    });
    const sourceLabels = await session('res').query('labels.labels', { queueId: source });
    expect(Array.isArray(sourceLabels.data) ? sourceLabels.data.length : null).toBe(1);
    expect(at(sourceLabels.data, 0, 'origin')).toBe('queue');
    const settled = await session('res').query('labels.adjudications', { queueId: source });
    expect(
      at(settled.data, 0, 'criterion') === 'quality' ? at(settled.data, 0, 'value') : null,
    ).toBe(3);
  });

  it('refuses a whole import naming a labeler who has no account, with the lines that name them', async () => {
    const queueId = await newQueue('import names');
    const next = await session('ana').mutate('labels.next', { queueId });
    const itemId = str(at(next.data, 'item', 'id'));
    await session('ana').mutate('labels.release', {
      queueId,
      ordinal: num(at(next.data, 'lease', 'ordinal')),
    });
    const line = (labeler: string, criterion: string, value: number, extra = '') =>
      `{"item":"${itemId}","labeler":"${labeler}","criterion":"${criterion}","value":${value}${extra}}`;
    const refused = await session('res').mutate('labels.importJsonl', {
      queueId,
      text: [
        line('ana', 'format', 4),
        line('zed', 'format', 2),
        line('zed', 'quality', 2),
        line('nobody', 'quality', 3, ',"adjudicated":true'),
        line('bo', 'format', 5),
      ].join('\n'),
    });
    expect([refused.status, at(refused.data, 'error', 'message')]).toEqual([
      400,
      'labeler: no account named zed (lines 2, 3), nobody (line 4); nothing was imported. Add the account (Accounts on the Labeling page, or terrarium users add) or correct the name.',
    ]);
    // All or nothing: ana's and bo's lines did not land either, and no item looks labeled.
    expect(await store.listLabels(queueId)).toEqual([]);
    expect(await store.listAdjudications(queueId)).toEqual([]);
    expect((await store.labelQueueItems(queueId)).filter((item) => item.labelCount > 0)).toEqual(
      [],
    );

    // A value off the scale is reported on its own line; the rest import, and counts say how
    // each label compares with the queue's.
    const first = await session('res').mutate('labels.importJsonl', {
      queueId,
      text: [line('ana', 'format', 4), line('bo', 'format', 3), line('bo', 'quality', 9)].join(
        '\n',
      ),
    });
    expect(first.data).toEqual({
      imported: 1,
      added: 1,
      replaced: 0,
      unchanged: 0,
      adjudicated: 0,
      adjudicationsUnchanged: 0,
      unknownItems: [],
      errors: [{ line: 3, reason: `${itemId} by bo: scores.quality: an integer from 1 to 5` }],
    });
    const second = await session('res').mutate('labels.importJsonl', {
      queueId,
      text: [line('ana', 'format', 4), line('bo', 'format', 3), line('cy', 'format', 2)].join('\n'),
    });
    expect(second.data).toMatchObject({ imported: 2, added: 2, replaced: 0, unchanged: 1 });
    const third = await session('res').mutate('labels.importJsonl', {
      queueId,
      text: [line('ana', 'format', 5), line('bo', 'format', 3), line('cy', 'format', 2)].join('\n'),
    });
    expect(third.data).toMatchObject({ imported: 1, added: 0, replaced: 1, unchanged: 2 });
    const labels = await store.listLabels(queueId);
    expect(labels.map((label) => [label.labelerName, label.scores])).toEqual([
      ['ana', { format: 5 }],
      ['bo', { format: 3 }],
      ['cy', { format: 2 }],
    ]);
  });

  it('keeps a rule set’s 0–10 scale and its point labels in the queue, and refuses a wider one by name', async () => {
    const res = session('res');
    const saved = await res.mutate('rulesets.save', {
      document: gradedRuleSet([
        { id: 'overall', text: 'How good a stand-in is it?', scale: { min: 0, max: 10 } },
        {
          id: 'correct',
          text: 'Are the values right?',
          scale: { min: 1, max: 3, labels: { '1': 'wrong', '2': 'partly', '3': 'right' } },
        },
      ]),
      message: 'a ten-point scale',
    });
    expect(at(saved.data, 'version')).toBe(1);
    const expected = [
      { id: 'overall', text: 'How good a stand-in is it?', min: 0, max: 10, weight: 0.7 },
      {
        id: 'correct',
        text: 'Are the values right?',
        min: 1,
        max: 3,
        weight: 0.7,
        labels: { '1': 'wrong', '2': 'partly', '3': 'right' },
      },
    ];
    const created = await res.mutate('labels.createQueue', {
      name: 'ten points',
      runId,
      selection: { kind: 'random', count: 2, seed: 4 },
      ruleSet: { name: 'graded', version: 1 },
    });
    expect(at(created.data, 'criteria')).toEqual(expected);
    const queueId = str(at(created.data, 'id'));
    expect(at((await session('dee').query('labels.queue', { queueId })).data, 'criteria')).toEqual(
      expected,
    );
    const next = await session('dee').mutate('labels.next', { queueId });
    expect(at(next.data, 'queue', 'criteria')).toEqual(expected);
    const submitted = await session('dee').mutate('labels.submit', {
      queueId,
      ordinal: num(at(next.data, 'lease', 'ordinal')),
      scores: { overall: 10, correct: 3 },
    });
    expect([submitted.status, at(submitted.data, 'scores')]).toEqual([
      200,
      { overall: 10, correct: 3 },
    ]);

    await res.mutate('rulesets.save', {
      document: gradedRuleSet([
        { id: 'percent', text: 'How much of it is right?', scale: { min: 0, max: 100 } },
      ]),
      message: 'a percentage',
    });
    const before = (await res.query('labels.queues', {})).data;
    const wide = await res.mutate('labels.createQueue', {
      name: 'percent',
      runId,
      ruleSet: { name: 'graded', version: 2 },
    });
    expect([wide.status, at(wide.data, 'error', 'message')]).toEqual([
      400,
      'ruleSet: criterion percent: its scale 0–100 has 101 points; labelers score at most 11 (e.g. 0–10), so give it a shorter scale',
    ]);
    expect((await res.query('labels.queues', {})).data).toEqual(before);
  });

  it('measures agreement between two blind labelers and against the rules, per criterion', async () => {
    const queueId = str(
      at(
        (
          await session('res').mutate('labels.createQueue', {
            name: 'agreement',
            runId,
            selection: { kind: 'random', count: 4, seed: 3 },
            labelsPerItem: 2,
          })
        ).data,
        'id',
      ),
    );
    // Both agree on format; on quality they swap the first two items.
    const quality: Record<string, number[]> = { ana: [1, 2, 3, 4], bo: [2, 1, 3, 4] };
    for (const name of ['ana', 'bo']) {
      for (let n = 0; n < 4; n++) {
        const next = await session(name).mutate('labels.next', { queueId });
        const ordinal = num(at(next.data, 'lease', 'ordinal'));
        await session(name).mutate('labels.submit', {
          queueId,
          ordinal,
          scores: { format: ordinal + 1, quality: quality[name]?.[ordinal] ?? null },
        });
      }
    }
    const agreement = await session('res').query('labels.agreement', { queueId });
    expect(agreement.status).toBe(200);
    const report = agreement.data;
    expect(at(report, 'labelers', 'items')).toBe(4);
    expect(at(report, 'labelers', 'labelers')).toBe(2);
    expect(at(report, 'labelers', 'byCriterion', 'format', 'krippendorffAlpha', 'nominal')).toBe(1);
    expect(at(report, 'labelers', 'byCriterion', 'format', 'cohenKappa', 'nominal')).toBe(1);
    const expected = krippendorffAlpha(
      [
        [1, 2],
        [2, 1],
        [3, 3],
        [4, 4],
      ],
      'ordinal',
    );
    expect(at(report, 'labelers', 'byCriterion', 'quality', 'krippendorffAlpha', 'ordinal')).toBe(
      expected,
    );
    expect(Object.keys(at(report, 'byDomain') ?? {})).toEqual(['tool']);
    // Retrieval predictions carry rule scores (content): every labeled item pairs with one.
    expect(at(report, 'humanVsRules', 'format', 'pairs')).toBe(4);
    expect(at(report, 'humanVsJudge')).toEqual({});
    // Labelers never read agreement.
    expect((await session('ana').query('labels.agreement', { queueId })).status).toBe(403);
  }, 60_000);

  it('closes the loop: a criterion edit, a re-judge job, and agreement before and after', async () => {
    // What the humans give each item on `facts`, by the action text the judge will see.
    const humanByAction = new Map<string, number>();
    const judge = await scriptedJudge((prompt) => {
      const human = [...humanByAction].find(([action]) => prompt.includes(`Action:\n${action}\n`));
      const value = human?.[1] ?? 3;
      // The reworded criterion makes the judge agree with the humans; the old one reverses them.
      const facts = prompt.includes('STRICT') ? value : 6 - value;
      return `{"format": 4, "facts": ${facts}, "consistency": 3, "realism": 4, "invented-outcome": 0}`;
    });
    try {
      const res = session('res');
      const queue = await res.mutate('labels.createQueue', {
        name: 'loop',
        runId,
        selection: { kind: 'random', count: 4, seed: 9 },
        ruleSet: { name: 'default-tool' },
      });
      const queueId = str(at(queue.data, 'id'));
      expect(at(queue.data, 'criteria', 1, 'id')).toBe('facts');
      for (let n = 0; n < 4; n++) {
        const next = await session('cy').mutate('labels.next', { queueId });
        const action = actionText(Action.parse(at(next.data, 'item', 'action')));
        const facts = (n % 4) + 1;
        humanByAction.set(action, facts);
        await session('cy').mutate('labels.submit', {
          queueId,
          ordinal: num(at(next.data, 'lease', 'ordinal')),
          scores: { facts },
        });
      }
      const original = await res.query('rulesets.get', { name: 'default-tool' });
      const document = str(at(original.data, 'document'));
      const v1 = await res.mutate('rulesets.save', { document, message: 'as shipped' });
      expect(at(v1.data, 'version')).toBe(1);
      const edited = document.replace(
        'Is every value that the history or the action fixes reproduced exactly?',
        'STRICT check that every id, number and echoed string matches the history exactly.',
      );
      expect(edited).not.toBe(document);
      const v2 = await res.mutate('rulesets.save', { document: edited, message: 'stricter facts' });
      expect(at(v2.data, 'version')).toBe(2);

      for (const version of [1, 2]) {
        const started = await res.mutate('labels.rejudge', {
          queueId,
          judge: `openai:${judge.url}#scripted`,
          ruleSet: { name: 'default-tool', version },
        });
        expect(at(started.data, 'judgeVersion')).toBe(`default-tool@v${version}`);
        const id = str(at(started.data, 'id'));
        let status: unknown;
        for (let poll = 0; poll < 200; poll++) {
          status = (await res.query('labels.rejudgeStatus', { id })).data;
          if (at(status, 'status') !== 'running') break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // What the judge spent: 100 prompt and 20 completion tokens a call, with no price set.
        expect(status).toMatchObject({
          status: 'done',
          total: 4,
          done: 4,
          unparsed: 0,
          usage: {
            inputTokens: 400,
            outputTokens: 80,
            costUsd: null,
            unpriced: { units: 4, knownUsd: 0 },
          },
        });
      }
      expect((await res.query('labels.judgeVersions', { queueId })).data).toEqual([
        'default-tool@v1',
        'default-tool@v2',
      ]);
      const before = await res.query('labels.agreement', {
        queueId,
        judgeVersion: 'default-tool@v1',
      });
      const after = await res.query('labels.agreement', {
        queueId,
        judgeVersion: 'default-tool@v2',
      });
      expect(at(before.data, 'humanVsJudge', 'facts', 'spearman')).toBe(-1);
      expect(at(after.data, 'humanVsJudge', 'facts', 'spearman')).toBe(1);
      expect(at(after.data, 'humanVsJudge', 'facts', 'kappa', 'nominal')).toBe(1);
      const flips = await res.query('labels.flips', {
        queueId,
        before: 'default-tool@v1',
        after: 'default-tool@v2',
      });
      // Humans gave 1..4; v1 said 5..2: every item but the one at 3 (6 − 3 = 3) moved, closer.
      const rows = Array.isArray(flips.data) ? flips.data : [];
      expect(
        rows
          .map((row) => [at(row, 'human'), at(row, 'before'), at(row, 'after'), at(row, 'closer')])
          .toSorted(),
      ).toEqual([
        [1, 5, 1, true],
        [2, 4, 2, true],
        [4, 2, 4, true],
      ]);
      expect(judge.asked).toHaveLength(8);
    } finally {
      await new Promise<void>((resolve) => judge.server.close(() => resolve()));
    }
  }, 60_000);
});

/** A rule set `graded` of these criteria alone, as a document to save. */
function gradedRuleSet(criteria: unknown[]): string {
  return JSON.stringify({
    name: 'graded',
    rules: [],
    criteria,
    combine: { rules: 0, criteria: 1 },
  });
}

/** An OpenAI-compatible judge on 127.0.0.1 whose answer is computed from the prompt it gets. */
function scriptedJudge(
  answerFor: (prompt: string) => string,
): Promise<{ server: Server; url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      asked.push(body);
      const parsed: unknown = JSON.parse(body);
      const messages = at(parsed, 'messages');
      const prompt = Array.isArray(messages)
        ? messages.map((message) => String(at(message, 'content'))).join('\n')
        : '';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `judge-${asked.length}`,
          object: 'chat.completion',
          model: 'scripted',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: answerFor(prompt) },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}/v1`, asked });
    });
  });
}
