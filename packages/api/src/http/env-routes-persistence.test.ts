import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { EnvService } from '@terrarium/curriculum';
import { openStore, type Store } from '@terrarium/db';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { createApiRequestHandler } from './api-routes';
import { createDefaultEnvService } from './env-routes';
import { seededDataDir } from '@terrarium/db/test-store';

const TOKEN = 'env-persist-token-0123456789';

const SHOUT_TASK = {
  id: 'user.shout',
  goal: 'Write HELLO into /data/shout.txt, then submit.',
  world: { id: 'scratch', params: { files: 2 } },
  verifier: {
    checks: [{ check: { kind: 'file-equals', path: '/data/shout.txt', content: 'HELLO\n' } }],
  },
  oracle: ['echo HELLO > /data/shout.txt', 'submit'],
  provenance: { source: 'user', trajectory: null, steps: [] },
};

const Listed = z.object({ tasks: z.array(z.object({ id: z.string(), world: z.string() })) });
const Generated = z.object({
  accepted: z.array(z.string()),
  rejected: z.array(z.object({ trajectory: z.string(), reason: z.string() })),
});
const Opened = z.object({ id: z.string() });
const Stepped = z.object({ reward: z.number(), terminated: z.boolean() });
const TaskBody = z.object({
  oracle: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])),
});

interface Running {
  env: EnvService;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  close(): Promise<void>;
}

/** One server "process": a store opened on the folder, the default env service over it, real HTTP. */
async function start(dataDir: string): Promise<Running & { store: Store }> {
  const store = await openStore({ dataDir });
  const env = createDefaultEnvService(undefined, store);
  const answer = createApiRequestHandler({ store, token: TOKEN, allowedHosts: ['127.0.0.1'], env });
  const server = createServer((request, response) => {
    if (!answer(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    env,
    store,
    async call(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, json: text === '' ? null : JSON.parse(text) };
    },
    async close() {
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}

/** Plays a task's oracle in a new session over HTTP and returns the final reward. */
async function solve(server: Running, taskId: string): Promise<number> {
  const task = TaskBody.parse((await server.call('GET', `/v1/tasks/${taskId}`)).json);
  const opened = Opened.parse(
    (await server.call('POST', '/v1/envs', { task: taskId, seed: 0 })).json,
  );
  let last = { reward: 0, terminated: false };
  for (const action of task.oracle) {
    const body =
      typeof action === 'string'
        ? { action }
        : {
            action: {
              type: 'function',
              function: { name: action['tool'], arguments: JSON.stringify(action['arguments']) },
            },
          };
    last = Stepped.parse((await server.call('POST', `/v1/envs/${opened.id}/step`, body)).json);
    if (last.terminated) break;
  }
  if (!last.terminated)
    last = Stepped.parse(
      (await server.call('POST', `/v1/envs/${opened.id}/step`, { action: 'submit' })).json,
    );
  return last.reward;
}

describe('a posted task outlives a server restart (PGlite on disk); sessions do not', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await seededDataDir('env-persist');
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is saved once accepted, listed after a restart and solvable to reward 1 there', async () => {
    const first = await start(dataDir);
    let session: string;
    try {
      expect((await first.call('POST', '/v1/tasks', SHOUT_TASK)).status).toBe(201);
      // A task the gates refuse is not saved.
      const lazy = { ...SHOUT_TASK, id: 'user.lazy', oracle: ['submit'] };
      expect((await first.call('POST', '/v1/tasks', lazy)).status).toBe(422);
      // Builtin tasks are code: never saved.
      expect((await first.store.listEnvTasks()).map((task) => task.id)).toEqual(['user.shout']);
      session = Opened.parse(
        (await first.call('POST', '/v1/envs', { task: 'user.shout' })).json,
      ).id;
    } finally {
      await first.close();
    }
    const second = await start(dataDir);
    try {
      await second.env.ready;
      expect(second.env.restored).toEqual({ worlds: 0, tasks: 1, skipped: [] });
      const listed = Listed.parse((await second.call('GET', '/v1/tasks')).json).tasks;
      expect(listed.map((task) => [task.id, task.world])).toEqual([
        ['scratch-last-line', 'scratch'],
        ['scratch-count-lines', 'scratch'],
        ['user.shout', 'scratch'],
      ]);
      expect(await solve(second, 'user.shout')).toBe(1);
      // Sessions live in memory: the one opened before the restart is gone.
      expect((await second.call('GET', `/v1/envs/${session}/state`)).status).toBe(404);
      // Deleted, it is gone for this server and the next; built-in tasks stay.
      expect((await second.call('DELETE', '/v1/tasks/user.shout')).status).toBe(204);
      expect((await second.call('GET', '/v1/tasks/user.shout')).status).toBe(404);
      expect((await second.call('POST', '/v1/envs', { task: 'user.shout' })).status).toBe(404);
      expect((await second.call('DELETE', '/v1/tasks/user.shout')).status).toBe(404);
      const builtin = await second.call('DELETE', '/v1/tasks/scratch-last-line');
      expect(builtin).toEqual({
        status: 409,
        json: {
          error: { message: 'task scratch-last-line is built in: it comes back with every start' },
        },
      });
    } finally {
      await second.close();
    }
    const third = await start(dataDir);
    try {
      await third.env.ready;
      expect(third.env.restored).toEqual({ worlds: 0, tasks: 0, skipped: [] });
      expect(await third.store.listEnvTasks()).toEqual([]);
    } finally {
      await third.close();
    }
  }, 120_000);
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `tasks generated from a stored dataset, and their reconstructed worlds, outlive a restart ${UNSHIPPED_DATA_REASON}`,
  () => {
    let dataDir: string;
    let generated: string[] = [];
    beforeAll(async () => {
      dataDir = await seededDataDir('env-persist');
    });
    afterAll(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    it('first run: generated tasks and their world recipes are saved', async () => {
      const server = await start(dataDir);
      try {
        const file = sharedDataPath(
          'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_4.json',
        );
        const files = (await collectDataFiles([file])).map(readDataFile);
        await importFiles(server.store, files, { dataset: 'ic-fs4' });
        const result = await server.call('POST', '/v1/tasks/generate', { dataset: 'ic-fs4' });
        expect(result.status).toBe(200);
        generated = Generated.parse(result.json).accepted;
        expect(generated.length).toBeGreaterThan(0);
        expect((await server.store.listEnvTasks()).map((task) => task.id)).toEqual(generated);
        const worlds = await server.store.listEnvWorlds();
        expect(worlds.map((world) => world.id)).toEqual(
          generated.map((id) => id.replace(/^ic-fs4\./, 'ic-fs4:')),
        );
        expect(worlds[0]?.spec).toMatchObject({
          dataset: (await server.store.getDatasetByName('ic-fs4'))?.id,
        });
      } finally {
        await server.close();
      }
    }, 300_000);

    it('second run: the worlds are rebuilt from the stored trajectories and every task solves to 1', async () => {
      const server = await start(dataDir);
      try {
        await server.env.ready;
        expect(server.env.restored).toEqual({
          worlds: generated.length,
          tasks: generated.length,
          skipped: [],
        });
        const listed = Listed.parse((await server.call('GET', '/v1/tasks')).json).tasks;
        expect(listed.map((task) => task.id).slice(2)).toEqual(generated);
        for (const id of generated) expect([id, await solve(server, id)]).toEqual([id, 1]);
      } finally {
        await server.close();
      }
    }, 300_000);

    it('third run: tasks on worlds whose dataset was deleted are skipped with the reason', async () => {
      const before = await start(dataDir);
      const dataset = await before.store.getDatasetByName('ic-fs4');
      if (dataset === null) throw new Error('no dataset ic-fs4');
      await before.store.deleteDataset(dataset.id);
      await before.close();
      const server = await start(dataDir);
      try {
        await server.env.ready;
        expect(server.env.restored.tasks).toBe(0);
        expect(server.env.restored.skipped.map((s) => s.reason)).toEqual([
          ...generated.map(() => `its dataset ${dataset.id} was deleted`),
          ...generated.map((id) => `its world ${id.replace(/^ic-fs4\./, 'ic-fs4:')} is gone`),
        ]);
      } finally {
        await server.close();
      }
    }, 300_000);
  },
);
