import type { Trajectory } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_LOCK_NAMESPACE_SQL } from '../batch-lock';
import { runMigrations, StoreSchemaTooNewError } from '../migrate';
import { MIGRATIONS } from '../migrations';
import { openOnExecutor, openStore } from '../open-store';
import type { Store } from '../store';
import {
  bashTrajectory,
  buildStep,
  buildTrajectory,
  largeTerminalTrajectory,
  retailTrajectory,
} from '../testing';
import { spawnStoreChild } from './child-process';
import type { StoreHarness, StoreLocation } from './harnesses';

const BASH_COMMANDS = [
  { command: 'grep -rl TODO /testbed/dir | wc -l', output: '3\n' },
  { command: 'ls /etc/passwd', output: '/etc/passwd\n' },
  {
    command: 'cat /testbed/missing.txt',
    output: 'cat: /testbed/missing.txt: No such file or directory\n',
  },
  { command: 'echo $HOME', output: '\u001b[32m/root\u001b[0m\n' },
  { command: 'find . -name "*.py" | head -n 2', output: './setup.py\n./src/app.py\n' },
];

// Versions are assigned per feature and may land out of order, so the latest is not the count.
const LATEST_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** 12 retail conversations (7 steps, 3 transitions each) and 5 bash episodes of 1..5 commands. */
const RETAIL = Array.from({ length: 12 }, (_, n) => retailTrajectory(n));
const BASH = Array.from({ length: 5 }, (_, n) => bashTrajectory(n, BASH_COMMANDS.slice(0, n + 1)));

async function importDataset(
  store: Store,
  name: string,
  trajectories: Trajectory[],
): Promise<string> {
  const batch = await store.beginImport(name);
  await batch.addTrajectories(trajectories);
  await batch.commit();
  return batch.datasetId;
}

async function withStore<T>(
  harness: StoreHarness,
  work: (store: Store, location: StoreLocation) => Promise<T>,
): Promise<T> {
  const location = await harness.createLocation();
  const store = await location.open();
  try {
    return await work(store, location);
  } finally {
    await store.close();
    await location.dispose();
  }
}

async function countRows(location: StoreLocation, table: string): Promise<number> {
  // Steps are stored in pages (migration 015): count the steps the pages hold.
  const count = table === 'steps' ? 'coalesce(sum(step_count), 0)::int' : 'count(*)::int';
  const raw = await location.openRaw();
  try {
    const [row] = await raw.query(
      `SELECT ${count} AS n FROM ${table === 'steps' ? 'step_pages' : table}`,
    );
    return typeof row?.['n'] === 'number' ? row['n'] : -1;
  } finally {
    await raw.close();
  }
}

/**
 * A killed client's PostgreSQL backend notices the closed socket a moment later; only then is the
 * batch's advisory lock free. (PGlite holds no locks across processes: this returns at once.)
 */
async function waitForImportLocksReleased(location: StoreLocation): Promise<void> {
  const raw = await location.openRaw();
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const [row] = await raw.query(
        `SELECT count(*)::int AS n FROM pg_locks
         WHERE locktype = 'advisory' AND classid = (${BATCH_LOCK_NAMESPACE_SQL})::oid`,
      );
      if (row?.['n'] === 0) return;
      await new Promise((done) => setTimeout(done, 100));
    }
  } finally {
    await raw.close();
  }
}

/** The one suite every backend runs. */
export function describeStoreSuite(harness: StoreHarness): void {
  describe(`${harness.name}: reads over a committed fixture`, () => {
    let location: StoreLocation;
    let store: Store;
    let retailId = '';
    let bashId = '';
    // Tests in this block only read, so they share one store loaded once (a PGlite takes seconds
    // to start); tests that write get a store of their own below.
    beforeAll(async () => {
      location = await harness.createLocation();
      store = await location.open();
      retailId = await importDataset(store, 'tau2 retail', RETAIL);
      const batch = await store.beginImport('intercode bash');
      await batch.addTrajectories(BASH);
      await batch.addQuarantined([
        {
          error: {
            file: 'ic_bash.json',
            line: 17,
            byteOffset: 2048,
            reason: 'Unexpected token } in JSON at position 12',
          },
          excerpt: '{"query": "ls", }',
        },
        {
          error: { file: 'ic_bash.json', line: null, byteOffset: 9000, reason: 'invalid UTF-8' },
          excerpt: '\ufffd\ufffd',
        },
      ]);
      await batch.commit();
      bashId = batch.datasetId;
    }, 120_000);
    afterAll(async () => {
      await store.close();
      await location.dispose();
    });

    it('reports the backend', () => {
      expect(store.backend).toBe(harness.name === 'PostgreSQL' ? 'postgres' : 'pglite');
    });

    it('round-trips a trajectory: header, tools and source record in their key order, every step', async () => {
      const page = await store.listTrajectories(
        { datasetId: retailId, search: 'mia_li_3668' },
        { offset: 0, limit: 10 },
      );
      expect(page.total).toBe(1);
      const id = page.rows[0]?.id ?? '';
      const original = RETAIL[0];
      if (!original) throw new Error('fixture missing');
      const detail = await store.getTrajectory(id);
      expect(detail).toEqual({
        id,
        datasetId: retailId,
        externalId: 'retail_task_0_trial_0',
        sourceFormat: 'tau2-bench',
        sourceBenchmark: 'tau2-bench/retail',
        domain: 'tool',
        task: original.task,
        agentModel: 'gpt-4.1-2025-04-14',
        outcome: { reward: 1, success: true },
        stepCount: 7,
        transitionCount: 3,
        taskId: null,
        trial: null,
        systemPrompt: 'You are a customer service agent for an online retail store.',
        tools: original.tools,
        toolsInferred: false,
        metadata: { simulationId: 'sim-0', seed: 300 },
        sourceFile: 'tau2-bench/retail/results.json',
      });
      // The tool schemas as the agent was given them: jsonb would read `zip` before `first_name`.
      expect(JSON.stringify(detail?.tools[0]?.function.parameters)).toBe(
        '{"type":"object","properties":{"first_name":{"type":"string"},"last_name":{"type":"string"},"zip":{"type":"string"}},"required":["first_name","last_name","zip"]}',
      );
      const window = await store.getSteps(id, 0, 100);
      expect(window.total).toBe(7);
      expect(window.offset).toBe(0);
      expect(window.steps).toEqual(original.steps);
      const source = await store.getSourceRecord(id);
      expect(source).toEqual(original.source);
      expect(JSON.stringify(source?.record)).toBe(
        '{"task_id":"0","trial":0,"reward_info":{"reward":1},"messages":[]}',
      );
    });

    it('summarises datasets with exact counts', async () => {
      expect(await store.listDatasets()).toEqual([
        {
          id: retailId,
          name: 'tau2 retail',
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          trajectories: 12,
          transitions: 36,
          steps: 84,
          quarantined: 0,
          domains: ['tool'],
          formats: ['tau2-bench'],
          outcomes: ['success', 'failure', 'unknown'],
        },
        {
          id: bashId,
          name: 'intercode bash',
          createdAt: expect.stringMatching(/Z$/),
          trajectories: 5,
          transitions: 15,
          steps: 15,
          quarantined: 2,
          domains: ['terminal'],
          formats: ['intercode'],
          // Every bash run records its outcome: the list offers no "unknown" for it.
          outcomes: ['success', 'failure'],
        },
      ]);
      expect((await store.getDatasetByName('intercode bash'))?.id).toBe(bashId);
      expect(await store.getDatasetByName('no such dataset')).toBeNull();
    });

    it.each([
      ['no filter', {}, 17],
      ['dataset retail', () => ({ datasetId: retailId }), 12],
      ['dataset bash', () => ({ datasetId: bashId }), 5],
      ['unknown dataset id', { datasetId: '999999' }, 0],
      ['malformed dataset id', { datasetId: 'abc' }, 0],
      ['domain terminal', { domain: 'terminal' }, 5],
      ['domain web', { domain: 'web' }, 0],
      ['source format intercode', { sourceFormat: 'intercode' }, 5],
      ['source format tau2-bench', { sourceFormat: 'tau2-bench' }, 12],
      ['outcome success', { outcome: 'success' }, 7],
      ['outcome failure', { outcome: 'failure' }, 6],
      ['outcome unknown', { outcome: 'unknown' }, 4],
      ['min 4 steps', { minSteps: 4 }, 14],
      ['max 2 steps', { maxSteps: 2 }, 2],
      ['2 to 4 steps', { minSteps: 2, maxSteps: 4 }, 3],
      ['bash and success', () => ({ datasetId: bashId, outcome: 'success' as const }), 3],
    ] as const)('filters by %s', async (_name, filter, expected) => {
      const resolved = typeof filter === 'function' ? filter() : filter;
      const page = await store.listTrajectories(resolved, { offset: 0, limit: 100 });
      expect(page.total).toBe(expected);
      expect(page.rows).toHaveLength(expected);
    });

    it('looks trajectories up by their source ids within a dataset', async () => {
      const all = await store.listTrajectories({ datasetId: bashId }, { offset: 0, limit: 100 });
      const [first, , third] = all.rows.map((row) => row.externalId);
      if (first === undefined || third === undefined) throw new Error('fewer than 3 bash runs');
      const found = await store.listTrajectories(
        { datasetId: bashId, externalIds: [third, 'no such id', first] },
        { offset: 0, limit: 100 },
      );
      expect(found.rows.map((row) => row.externalId)).toEqual([first, third]);
      // Source ids are a dataset's own: the bash ids are in no other dataset.
      const elsewhere = await store.listTrajectories(
        { datasetId: retailId, externalIds: [first] },
        { offset: 0, limit: 100 },
      );
      expect(elsewhere.total).toBe(0);
      expect(
        (await store.listTrajectories({ externalIds: [] }, { offset: 0, limit: 100 })).total,
      ).toBe(0);
    });

    it.each([
      ['an identifier from a tool result', 'mia_li_3668', 1],
      ['a tool name', 'get_user_details', 12],
      ['a word from the task and messages', 'keyboard', 12],
      ['words in different steps of one trajectory', 'keyboard Austin', 12],
      ['a term with an exclusion', 'exchange -mia_li_3668', 11],
      ['an order number', 'W4003', 1],
      ['a phrase in error observations', '"not found"', 3],
      ['a phrase in terminal output', '"No such file or directory"', 3],
      ['a path', '/etc/passwd', 4],
      ['part of a path', 'passwd', 4],
      ['a file name', 'setup.py', 1],
      ['an external id', 'retail_task_5_trial_0', 1],
      ['alternatives', 'keyboard or passwd', 16],
      ['different case', 'AUSTIN', 12],
      ['a missing word', 'zzzunfindable', 0],
      ['a missing identifier', 'mia_li_9999', 0],
      ['punctuation only (no search)', '!!! ...', 17],
    ])('searches %s: %s', async (_name, search, expected) => {
      const page = await store.listTrajectories({ search }, { offset: 0, limit: 100 });
      expect(page.total).toBe(expected);
      expect(page.rows).toHaveLength(expected);
    });

    it('pages in a stable order with a total on every page', async () => {
      const all = await store.listTrajectories({}, { offset: 0, limit: 100 });
      const pages = [0, 5, 10, 15].map((offset) =>
        store.listTrajectories({}, { offset, limit: 5 }),
      );
      const resolved = await Promise.all(pages);
      expect(resolved.map((page) => page.total)).toEqual([17, 17, 17, 17]);
      expect(resolved.map((page) => page.rows.length)).toEqual([5, 5, 5, 2]);
      expect(resolved.flatMap((page) => page.rows.map((row) => row.id))).toEqual(
        all.rows.map((row) => row.id),
      );
      expect(all.rows.map((row) => row.externalId).slice(10, 14)).toEqual([
        'retail_task_10_trial_0',
        'retail_task_11_trial_0',
        'intercode-bash-0',
        'intercode-bash-1',
      ]);
      const ids = all.rows.map((row) => BigInt(row.id));
      expect(ids).toEqual(ids.toSorted((a, b) => (a < b ? -1 : 1)));
      expect(await store.listTrajectories({}, { offset: 40, limit: 5 })).toEqual({
        total: 17,
        rows: [],
        order: 'id',
      });
      const filtered = await store.listTrajectories(
        { search: 'keyboard' },
        { offset: 10, limit: 5 },
      );
      expect(filtered.total).toBe(12);
      expect(filtered.rows.map((row) => row.externalId)).toEqual([
        'retail_task_10_trial_0',
        'retail_task_11_trial_0',
      ]);
    });

    it("lists a search's best matches first: terms in the id or task, then more matching steps", async () => {
      const listed = async (search: string) => {
        const page = await store.listTrajectories({ search }, { offset: 0, limit: 100 });
        return [page.order, page.rows.map((row) => row.externalId)];
      };
      // Every bash task names /testbed; bash-2..4 also cat /testbed/missing.txt, a second step.
      expect(await listed('testbed')).toEqual([
        'relevance',
        [
          'intercode-bash-2',
          'intercode-bash-3',
          'intercode-bash-4',
          'intercode-bash-0',
          'intercode-bash-1',
        ],
      ]);
      // Order #W4005 is in retail 5's task; mia_li_3668 only in a tool result of retail 0.
      expect(await listed('mia_li_3668 or W4005')).toEqual([
        'relevance',
        ['retail_task_5_trial_0', 'retail_task_0_trial_0'],
      ]);
      // Pages of a ranked list hold the same order as the whole list.
      const whole = (await listed('testbed'))[1];
      const paged = await Promise.all(
        [0, 2, 4].map((offset) =>
          store.listTrajectories({ search: 'testbed' }, { offset, limit: 2 }),
        ),
      );
      expect(paged.flatMap((page) => page.rows.map((row) => row.externalId))).toEqual(whole);
      // Without a search, or with exclusions only, import order.
      expect((await store.listTrajectories({}, { offset: 0, limit: 1 })).order).toBe('id');
      expect((await listed('-keyboard'))[0]).toBe('id');
    });

    it('shows where a search matched: the first matching step, an excerpt, its highlights', async () => {
      const shown = async (search: string) =>
        (await store.listTrajectories({ search }, { offset: 0, limit: 100 })).rows.map((row) => {
          const match = row.match;
          if (match === undefined) return [row.externalId, 'no match'];
          return [
            row.externalId,
            match.step,
            match.field,
            match.highlights.map(([from, to]) => match.text.slice(from, to)),
          ];
        });
      expect(await shown('mia_li_3668')).toEqual([
        ['retail_task_0_trial_0', 3, 'observation', ['mia_li_3668']],
      ]);
      // A path is a phrase of its parts in the index; the highlight covers it as written.
      expect(await shown('/etc/passwd')).toEqual(
        [1, 2, 3, 4].map((n) => [`intercode-bash-${n}`, 1, 'action', ['etc/passwd']]),
      );
      // The step that holds both clauses: the tool's error naming the order, not the user's
      // message (step 0) that names it only.
      expect(await shown('"not found" W4003')).toEqual([
        ['retail_task_3_trial_0', 5, 'observation', ['W4003', 'not found']],
      ]);
      // A user's message is a message, not an action.
      expect(await shown('"exchange a keyboard" W4002')).toEqual([
        ['retail_task_2_trial_0', 0, 'message', ['exchange a keyboard', 'W4002']],
      ]);
      // No step matched, the id did.
      expect(await shown('retail_task_5_trial_0')).toEqual([
        ['retail_task_5_trial_0', null, 'id', ['retail_task_5_trial_0']],
      ]);
      // Without a search nothing is added.
      const plain = await store.listTrajectories({}, { offset: 0, limit: 1 });
      expect(plain.rows[0]?.match).toBeUndefined();
    });

    it('gives compact step markers with labels cut in SQL', async () => {
      const page = await store.listTrajectories({ search: 'mia_li_3668' }, { offset: 0, limit: 1 });
      const markers = await store.getStepMarkers(page.rows[0]?.id ?? '');
      expect(markers).toEqual([
        {
          index: 0,
          actor: 'user',
          actionType: 'message',
          label: "Hi! I'd like to exchange a keyboard from my order #W4000.",
          observationKind: null,
          reward: null,
        },
        {
          index: 1,
          actor: 'agent',
          actionType: 'message',
          label: 'I can help with that. Could you give me your name and zip code?',
          observationKind: null,
          reward: null,
        },
        {
          index: 2,
          actor: 'user',
          actionType: 'message',
          label: "Sure, I'm Mia Li, zip 78701.",
          observationKind: null,
          reward: null,
        },
        {
          index: 3,
          actor: 'agent',
          actionType: 'tool_call',
          label: 'find_user_id_by_name_zip',
          observationKind: 'text',
          reward: null,
        },
        {
          index: 4,
          actor: 'agent',
          actionType: 'tool_call',
          label: 'get_user_details',
          observationKind: 'json',
          reward: null,
        },
        {
          index: 5,
          actor: 'agent',
          actionType: 'tool_call',
          label: 'get_order_details',
          observationKind: 'json',
          reward: null,
        },
        {
          index: 6,
          actor: 'agent',
          actionType: 'message',
          label: 'Your order #W4000 is delivered. I have started the exchange for the keyboard; yo',
          observationKind: null,
          reward: 1,
        },
      ]);
      const bash = await store.listTrajectories(
        { datasetId: bashId, minSteps: 5 },
        { offset: 0, limit: 1 },
      );
      const bashMarkers = await store.getStepMarkers(bash.rows[0]?.id ?? '');
      expect(bashMarkers.map((marker) => marker.label)).toEqual(
        BASH_COMMANDS.map((c) => c.command),
      );
      expect(bashMarkers.map((marker) => marker.observationKind)).toEqual(
        Array(5).fill('terminal'),
      );
    });

    it('lists quarantined records of a dataset', async () => {
      const records = await store.listQuarantined(bashId);
      expect(records.map(({ id: _id, ...rest }) => rest)).toEqual([
        {
          datasetId: bashId,
          file: 'ic_bash.json',
          line: 17,
          byteOffset: 2048,
          reason: 'Unexpected token } in JSON at position 12',
          excerpt: '{"query": "ls", }',
        },
        {
          datasetId: bashId,
          file: 'ic_bash.json',
          line: null,
          byteOffset: 9000,
          reason: 'invalid UTF-8',
          excerpt: '\ufffd\ufffd',
        },
      ]);
      expect(await store.listQuarantined(retailId)).toEqual([]);
      expect(await store.listQuarantined('nope')).toEqual([]);
    });

    it('answers unknown or malformed ids with nothing', async () => {
      for (const id of ['987654321', 'not-a-number', '', '1; DROP TABLE steps']) {
        expect(await store.getTrajectory(id)).toBeNull();
        expect(await store.getSourceRecord(id)).toBeNull();
        expect(await store.getStepMarkers(id)).toEqual([]);
        expect(await store.getSteps(id, 0, 10)).toEqual({
          trajectoryId: id,
          total: 0,
          offset: 0,
          steps: [],
        });
      }
    });
  });

  describe(`${harness.name}: writes`, () => {
    it('keeps an uncommitted batch invisible, then shows it whole on commit', async () => {
      await withStore(harness, async (store) => {
        const batch = await store.beginImport('retail');
        await batch.addTrajectories(RETAIL.slice(0, 4));
        await batch.addQuarantined([
          { error: { file: 'r.json', line: 3, byteOffset: null, reason: 'bad' }, excerpt: '{' },
        ]);
        expect(await store.listDatasets()).toEqual([]);
        expect(await store.getDatasetByName('retail')).toBeNull();
        expect((await store.listTrajectories({}, { offset: 0, limit: 10 })).total).toBe(0);
        expect(
          (await store.listTrajectories({ search: 'keyboard' }, { offset: 0, limit: 10 })).total,
        ).toBe(0);
        expect(await store.listQuarantined(batch.datasetId)).toEqual([]);
        await batch.addTrajectories(RETAIL.slice(4, 6));
        await batch.commit();
        const [dataset] = await store.listDatasets();
        expect(dataset).toMatchObject({
          name: 'retail',
          trajectories: 6,
          steps: 42,
          transitions: 18,
          quarantined: 1,
        });
        await expect(batch.addTrajectories(RETAIL.slice(6, 7))).rejects.toThrow(
          /already committed/,
        );
      });
    });

    it('adds a second import to an existing dataset, and an aborted one leaves nothing', async () => {
      await withStore(harness, async (store) => {
        const datasetId = await importDataset(store, 'retail', RETAIL.slice(0, 2));
        expect(await importDataset(store, 'retail', RETAIL.slice(2, 5))).toBe(datasetId);
        expect((await store.getDatasetByName('retail'))?.trajectories).toBe(5);
        const aborted = await store.beginImport('retail');
        await aborted.addTrajectories(RETAIL.slice(5, 9));
        await aborted.abort();
        const lonely = await store.beginImport('never finished');
        await lonely.addTrajectories(BASH);
        await lonely.abort();
        expect((await store.listDatasets()).map((d) => [d.name, d.trajectories])).toEqual([
          ['retail', 5],
        ]);
        expect(await store.getDatasetByName('never finished')).toBeNull();
        expect((await store.listTrajectories({}, { offset: 0, limit: 100 })).total).toBe(5);
      });
    });

    it('deletes a dataset with its trajectories and quarantine', async () => {
      await withStore(harness, async (store) => {
        const retailId = await importDataset(store, 'retail', RETAIL.slice(0, 3));
        const bashId = await importDataset(store, 'bash', BASH);
        await store.deleteDataset(retailId);
        expect((await store.listDatasets()).map((d) => d.id)).toEqual([bashId]);
        expect(
          (await store.listTrajectories({ search: 'keyboard' }, { offset: 0, limit: 10 })).total,
        ).toBe(0);
        expect((await store.listTrajectories({}, { offset: 0, limit: 10 })).total).toBe(5);
      });
    });

    it('stores characters PostgreSQL cannot hold as visible stand-ins, and everything else as is', async () => {
      await withStore(harness, async (store) => {
        const odd = buildTrajectory({
          externalId: 'odd',
          task: 'emoji 🦎 and accents: café, 日本語',
          steps: [
            buildStep(0, {
              action: { type: 'keystrokes', keys: 'ls\u0000\r' },
              observation: {
                kind: 'terminal',
                content: 'a\u0000b \ud800 c \\u0000 🦎',
                callId: null,
              },
              metadata: { 'weird\\key': 'x\u0000' },
            }),
          ],
        });
        await importDataset(store, 'odd', [odd]);
        const [row] = (await store.listTrajectories({}, { offset: 0, limit: 1 })).rows;
        const window = await store.getSteps(row?.id ?? '', 0, 10);
        expect(window.steps[0]?.action).toEqual({ type: 'keystrokes', keys: 'ls\u2400\r' });
        expect(window.steps[0]?.observation?.content).toBe('a\u2400b \ufffd c \\u0000 🦎');
        expect(window.steps[0]?.metadata).toEqual({ 'weird\\key': 'x\u2400' });
        expect((await store.getTrajectory(row?.id ?? ''))?.task).toBe(
          'emoji 🦎 and accents: café, 日本語',
        );
        expect(
          (await store.listTrajectories({ search: 'café' }, { offset: 0, limit: 1 })).total,
        ).toBe(1);
      });
    });

    it('loads a 10,000-step trajectory with 20 KB observations one window at a time', async () => {
      await withStore(harness, async (store) => {
        const huge = largeTerminalTrajectory(10_000, 20 * 1024);
        const batch = await store.beginImport('huge');
        // Importers hand over trajectories as they finish parsing them; here it is one.
        await batch.addTrajectories([huge]);
        await batch.commit();
        const [summary] = (
          await store.listTrajectories({ minSteps: 10_000 }, { offset: 0, limit: 1 })
        ).rows;
        const id = summary?.id ?? '';
        expect(summary?.stepCount).toBe(10_000);
        expect(summary?.transitionCount).toBe(10_000);

        const first = await store.getSteps(id, 0, 50);
        expect(first.total).toBe(10_000);
        expect(first.steps.map((step) => step.index)).toEqual(
          Array.from({ length: 50 }, (_, i) => i),
        );
        expect(first.steps[0]).toEqual(huge.steps[0]);
        const middle = await store.getSteps(id, 5_000, 3);
        expect(middle.steps).toEqual(huge.steps.slice(5_000, 5_003));
        expect(middle.steps[2]?.observation?.content.length).toBe(20 * 1024);
        const last = await store.getSteps(id, 9_990, 50);
        expect(last.steps.map((step) => step.index)).toEqual(
          Array.from({ length: 10 }, (_, i) => 9_990 + i),
        );
        expect((await store.getSteps(id, 10_000, 50)).steps).toEqual([]);
        // A caller asking for everything gets one capped window.
        expect((await store.getSteps(id, 0, 1_000_000)).steps).toHaveLength(1000);

        const markers = await store.getStepMarkers(id);
        expect(markers).toHaveLength(10_000);
        expect(markers[9_999]).toEqual({
          index: 9_999,
          actor: 'agent',
          actionType: 'command',
          label: 'ls -la /srv/build/step-9999 && echo done',
          observationKind: 'terminal',
          reward: null,
        });
        // Markers carry no observation body: the whole timeline is a few hundred KB.
        expect(JSON.stringify(markers).length).toBeLessThan(1_500_000);
        expect(
          (await store.listTrajectories({ search: 'marker-7777' }, { offset: 0, limit: 1 })).total,
        ).toBe(1);
        expect(
          (await store.listTrajectories({ search: 'step-9999' }, { offset: 0, limit: 1 })).total,
        ).toBe(1);
        expect(
          (await store.listTrajectories({ search: 'exit-status-4242' }, { offset: 0, limit: 1 }))
            .total,
        ).toBe(1);
      });
    }, 600_000);

    it('refuses a database written by a newer Terrarium with a clear error', async () => {
      const location = await harness.createLocation();
      try {
        const raw = await location.openRaw();
        await runMigrations(raw);
        await raw.query(
          `INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')`,
        );
        await expect(openOnExecutor(raw)).rejects.toThrow(
          `this store was written by a newer Terrarium (schema 999, this build knows up to ${LATEST_VERSION})`,
        );
      } finally {
        await location.dispose();
      }
    });
  });
}

/** What only a store that outlives its process can show: reopening, crashes, old versions. */
export function describePersistentStoreSuite(harness: StoreHarness): void {
  describe(`${harness.name}: reopening`, () => {
    it('refuses on open a store written by a newer Terrarium, and holds nothing afterwards', async () => {
      const location = await harness.createLocation();
      try {
        const raw = await location.openRaw();
        await runMigrations(raw);
        await raw.query(
          `INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')`,
        );
        await raw.close();
        const message = `this store was written by a newer Terrarium (schema 999, this build knows up to ${LATEST_VERSION})`;
        await expect(openStore(location.options)).rejects.toThrow(message);
        // A failed open released the folder: the second attempt fails the same way, not as busy.
        await expect(openStore(location.options)).rejects.toBeInstanceOf(StoreSchemaTooNewError);
      } finally {
        await location.dispose();
      }
    });

    it("gives a deleted dataset's pages to the next import instead of growing", async () => {
      const location = await harness.createLocation();
      const many = Array.from({ length: 400 }, (_, n) => retailTrajectory(n));
      const pages = async () => {
        const raw = await location.openRaw();
        try {
          const [row] = await raw.query(
            `SELECT sum(pg_total_relation_size(c))::int / 8192 AS n FROM unnest(
               ARRAY['trajectories', 'step_pages', 'import_batches']::regclass[]) AS c`,
          );
          return typeof row?.['n'] === 'number' ? row['n'] : -1;
        } finally {
          await raw.close();
        }
      };
      try {
        let store = await location.open();
        await store.close();
        const empty = await pages();
        store = await location.open();
        await importDataset(store, 'first', many);
        await store.close();
        const once = await pages();
        store = await location.open();
        const first = await store.getDatasetByName('first');
        await store.deleteDataset(first?.id ?? '');
        await store.close();
        const deleted = await pages();
        store = await location.open();
        await importDataset(store, 'again', many);
        await store.close();
        const again = await pages();
        // The dataset takes hundreds of pages. Before, a delete freed none of them and the same
        // trajectories imported again took as many more (once + (once - empty)).
        expect(once - empty).toBeGreaterThan(100);
        expect(deleted).toBeLessThan(once);
        expect(again - once).toBeLessThan((once - empty) / 10);
      } finally {
        await location.dispose();
      }
    });

    it('deletes a batch that never committed when the store is reopened, and a rerun succeeds', async () => {
      const location = await harness.createLocation();
      try {
        const first = await location.open();
        await importDataset(first, 'kept', BASH.slice(0, 2));
        const batch = await first.beginImport('half');
        await batch.addTrajectories(RETAIL.slice(0, 3));
        await first.close();
        expect(await countRows(location, 'trajectories')).toBe(5);

        const second = await location.open();
        expect((await second.listDatasets()).map((d) => d.name)).toEqual(['kept']);
        await second.close();
        expect(await countRows(location, 'trajectories')).toBe(2);
        expect(await countRows(location, 'steps')).toBe(3);
        expect(await countRows(location, 'import_batches')).toBe(1);

        const third = await location.open();
        await importDataset(third, 'half', RETAIL.slice(0, 3));
        expect((await third.listDatasets()).map((d) => [d.name, d.trajectories])).toEqual([
          ['kept', 2],
          ['half', 3],
        ]);
        await third.close();
      } finally {
        await location.dispose();
      }
    });

    it('survives an importer killed with SIGKILL: the dataset is absent, then a rerun succeeds', async () => {
      const location = await harness.createLocation();
      try {
        const child = spawnStoreChild('import-and-hang', location.options);
        try {
          await child.waitForLine((line) => line === 'ready');
        } finally {
          await child.kill();
        }
        await waitForImportLocksReleased(location);
        const store = await location.open();
        try {
          expect(await store.listDatasets()).toEqual([]);
          expect(await store.getDatasetByName('crashy')).toBeNull();
          await importDataset(store, 'crashy', RETAIL.slice(0, 5));
          expect((await store.getDatasetByName('crashy'))?.trajectories).toBe(5);
        } finally {
          await store.close();
        }
        expect(await countRows(location, 'trajectories')).toBe(5);
      } finally {
        await location.dispose();
      }
    }, 120_000);
  });
}
