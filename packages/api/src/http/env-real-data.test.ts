import { createReadStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import {
  createEnvService,
  taskFromTerminalTrajectory,
  type EnvService,
  type GeneratedTask,
  type WorldEntry,
} from '@terrarium/curriculum';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { buildTerminalWorld, reconstructWorkspace } from '@terrarium/executable-worlds';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { createApiRequestHandler } from './api-routes';

const TOKEN = 'env-real-data-token-0123456789';
const MARSHMALLOW =
  'swe-agent/trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1___install_from_source/marshmallow-code__marshmallow-1867.traj';

async function read(relative: string): Promise<Trajectory[]> {
  const file = sharedDataPath(relative);
  const out: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'trajectory') out.push(event.trajectory);
  }
  return out;
}

/** A catalog entry whose worlds are fresh reconstructions of the trajectory's starting workspace. */
function reconstructed(trajectory: Trajectory): {
  entry: WorldEntry;
  build: () => ReturnType<typeof buildTerminalWorld>;
} {
  const workspace = reconstructWorkspace(trajectory);
  const build = () => buildTerminalWorld(trajectory, { workspace });
  return {
    entry: {
      id: `traj:${trajectory.externalId}`,
      description: `reconstructed from ${trajectory.externalId}`,
      create: build,
    },
    build,
  };
}

/** What `POST /v1/tasks/generate` answers. */
const GenerateReport = z.object({
  accepted: z.array(z.string()),
  rejected: z.array(z.object({ trajectory: z.string(), name: z.string(), reason: z.string() })),
});

const Opened = z.object({ id: z.string(), observation: z.string() });
const Stepped = z.object({
  observation: z.string(),
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  info: z.record(z.string(), z.unknown()),
});

/** A server on 127.0.0.1 behind the real gate, over the given env service. */
async function serve(
  env: EnvService,
  fill?: (store: Store) => Promise<unknown>,
): Promise<{
  url: string;
  close(): Promise<void>;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
}> {
  const store: Store = await openMemoryStore();
  await fill?.(store);
  const answer = createApiRequestHandler({ store, token: TOKEN, allowedHosts: ['127.0.0.1'], env });
  const server: Server = createServer((request, response) => {
    if (!answer(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
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

describe.skipIf(!sharedDataAvailable('intercode'))(
  `tasks from InterCode bash ${UNSHIPPED_DATA_REASON}`,
  () => {
    const generated = new Map<
      string,
      { trajectory: Trajectory; result: GeneratedTask; entry: WorldEntry }
    >();
    beforeAll(async () => {
      for (const fs of [1, 2, 3, 4]) {
        for (const trajectory of await read(
          `intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_${fs}.json`,
        )) {
          const { entry, build } = reconstructed(trajectory);
          const result = await taskFromTerminalTrajectory({
            trajectory,
            worldId: entry.id,
            buildWorld: build,
          });
          generated.set(trajectory.externalId, { trajectory, result, entry });
        }
      }
    }, 300_000);

    function get(id: string) {
      const found = generated.get(id);
      if (found === undefined) throw new Error(`no trajectory ${id}`);
      return found;
    }

    it('keeps only tasks that pass all five gates, with provenance to the solving steps', () => {
      const accepted = [...generated.values()].flatMap(({ result }) => (result.ok ? [result] : []));
      const solved = [...generated.values()].filter(({ trajectory }) =>
        trajectory.steps.some((step) => (step.reward ?? 0) >= 1),
      );
      console.log(
        `InterCode bash gpt-4: ${generated.size} trajectories, ${solved.length} solved, ${accepted.length} tasks accepted`,
      );
      expect(generated.size).toBe(200);
      expect(solved.length).toBe(97);
      expect(accepted.length).toBeGreaterThan(0);
      for (const { task, report } of accepted) {
        expect(report.gates.map((gate) => gate.ok)).toEqual([true, true, true, true, true]);
        expect(task.provenance.source).toBe('intercode/bash');
        expect(task.provenance.steps.length).toBeGreaterThan(0);
      }
      // Every solved trajectory either became a task or says why not.
      const unexplained = solved.filter(({ result }) =>
        result.ok ? false : result.reason.length < 20,
      );
      expect(unexplained).toEqual([]);
    });

    it('rejects a task whose verifier the empty solution passes (mkdir -p: an effect on directories only)', () => {
      const { trajectory, result } = get('ic_bash_multiturn_gpt-4_10_turns_fs_4.json#6');
      expect(trajectory.steps.map((step) => step.action)).toEqual([
        { type: 'command', command: 'mkdir -p dir/subdir/subsubdir', interpreter: 'bash' },
      ]);
      if (result.ok) throw new Error('accepted a task that rewards doing nothing');
      expect(result.report?.gates.map((gate) => [gate.gate, gate.ok])).toEqual([
        ['oracle-passes', true],
        ['empty-fails', false],
        ['noop-fails', false],
        ['initial-fails', false],
        ['world-needed', true],
      ]);
      expect(result.reason).toContain(
        'the empty solution passes the verifier (reward 1.00; passing: the answer is the expected one)',
      );
    });

    it('rejects a task whose answer the rebuilt world gives over nothing (the md5 of no input, a sum of 0)', () => {
      // `$files` was never set and /testbed was never seen: the recorded answers are what the
      // commands print over no input, which an empty world prints too.
      const constants: [string, string][] = [
        ['ic_bash_multiturn_gpt-4_10_turns_fs_1.json#2', 'd41d8cd98f00b204e9800998ecf8427e  -\n'],
        ['ic_bash_multiturn_gpt-4_10_turns_fs_1.json#29', '0\n'],
      ];
      for (const [id, answer] of constants) {
        const { result } = get(id);
        if (result.ok) throw new Error(`accepted ${id}, whose answer is a constant`);
        expect(result.report?.gates.map((gate) => [gate.gate, gate.ok])).toEqual([
          ['oracle-passes', true],
          ['empty-fails', true],
          ['noop-fails', true],
          ['initial-fails', true],
          ['world-needed', false],
        ]);
        expect(result.reason).toBe(
          `the oracle gives the expected answer (${JSON.stringify(answer)}) in an empty world too, a value computed over nothing: the rebuilt world lacks what the task is about`,
        );
      }
      // Answers an empty world also gives that are no such value are tasks needing no files.
      expect(get('ic_bash_multiturn_gpt-4_10_turns_fs_4.json#26').result.ok).toBe(true);
    });

    it('serves a generated task over HTTP; a mid-episode fork continues identically to reward 1', async () => {
      const { result, entry } = get('ic_bash_multiturn_gpt-4_10_turns_fs_4.json#3');
      if (!result.ok) throw new Error(result.reason);
      const env = createEnvService({
        now: Date.now,
        newId: () => crypto.randomUUID(),
        worlds: [entry],
      });
      const server = await serve(env);
      try {
        const added = await server.call('POST', '/v1/tasks', result.task);
        expect(added.status).toBe(201);
        const opened = Opened.parse(
          (await server.call('POST', '/v1/envs', { task: result.task.id, seed: 0 })).json,
        );
        const [first, second] = result.task.oracle;
        if (typeof first !== 'string' || typeof second !== 'string')
          throw new Error('shell oracle expected');
        await server.call('POST', `/v1/envs/${opened.id}/step`, { action: first });
        const fork = Opened.parse((await server.call('POST', `/v1/envs/${opened.id}/fork`)).json);
        const runs = [];
        for (const id of [opened.id, fork.id]) {
          const out = Stepped.parse(
            (await server.call('POST', `/v1/envs/${id}/step`, { action: second })).json,
          );
          const done = Stepped.parse(
            (await server.call('POST', `/v1/envs/${id}/step`, { action: 'submit' })).json,
          );
          runs.push([out.observation, out.info['provenance'], done.reward, done.terminated]);
        }
        expect(runs[1]).toEqual(runs[0]);
        expect(runs[0]?.slice(1)).toEqual(['executed', 1, true]);
        expect(runs[0]?.[0]).toBe(
          get('ic_bash_multiturn_gpt-4_10_turns_fs_4.json#3').trajectory.steps[1]?.observation
            ?.content,
        );
      } finally {
        await server.close();
      }
    }, 60_000);
  },
);

describe('POST /v1/tasks/generate on the shipped SWE-agent demo', () => {
  it('reads only `limit` trajectories and names each one it leaves out by its source id', async () => {
    const env = createEnvService({ now: Date.now, newId: () => crypto.randomUUID() });
    const server = await serve(env, async (store) => {
      const files = (await collectDataFiles([sharedDataPath('swe-agent')])).map(readDataFile);
      await importFiles(store, files, { dataset: 'swe-demo' });
    });
    try {
      const generated = await server.call('POST', '/v1/tasks/generate', {
        dataset: 'swe-demo',
        limit: 2,
      });
      expect(generated.status).toBe(200);
      const report = GenerateReport.parse(generated.json);
      // SWE-agent records no verdict (a submitted patch is not a solved task): no oracle to replay.
      expect(report.accepted).toEqual([]);
      expect(report.rejected.map((entry) => [entry.name.split('/').at(-1), entry.reason])).toEqual([
        [
          'ctf__crypto__BabyEncryption.traj',
          'the trajectory never solved its task, so it has no oracle',
        ],
        [
          'ctf__crypto__BabyTimeCapsule.traj',
          'the trajectory never solved its task, so it has no oracle',
        ],
      ]);
      expect(report.rejected.every((entry) => /^[1-9][0-9]*$/.test(entry.trajectory))).toBe(true);
    } finally {
      await server.close();
    }
    // The import of the 22 SWE-agent runs alone took over 5 s on a loaded machine.
  }, 60_000);
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `POST /v1/tasks/generate on a stored InterCode dataset ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('turns the dataset into gated tasks on reconstructed worlds that a trainer then solves', async () => {
      const file = sharedDataPath(
        'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_4.json',
      );
      const env = createEnvService({ now: Date.now, newId: () => crypto.randomUUID() });
      const server = await serve(env, async (store) => {
        const files = (await collectDataFiles([file])).map(readDataFile);
        await importFiles(store, files, { dataset: 'ic-fs4' });
      });
      try {
        const generated = await server.call('POST', '/v1/tasks/generate', { dataset: 'ic-fs4' });
        expect(generated.status).toBe(200);
        const report = GenerateReport.parse(generated.json);
        expect(report.accepted.length + report.rejected.length).toBe(27);
        expect(report.rejected.every((entry) => /#\d+$/.test(entry.name))).toBe(true);
        expect(report.accepted.every((id) => id.startsWith('ic-fs4.'))).toBe(true);
        const TaskBody = z.object({
          id: z.string(),
          oracle: z.array(z.string()),
          provenance: z.object({ trajectory: z.string() }),
        });
        const tasks = await Promise.all(
          report.accepted.map(async (id) =>
            TaskBody.parse((await server.call('GET', `/v1/tasks/${id}`)).json),
          ),
        );
        const sum = tasks.find((task) => task.oracle[0] === 'echo $((1+2+3+4+5+6+7+8+9+10))');
        if (sum === undefined)
          throw new Error(`no summing task among ${report.accepted.join(', ')}`);
        const id = sum.id;
        expect(id).toBe(`ic-fs4.${sum.provenance.trajectory}`);
        // The world is described by the file's own trajectory id, not the store's (walk 43 saw
        // "reconstructed from 440").
        const Worlds = z.object({
          worlds: z.array(z.object({ id: z.string(), description: z.string() })),
        });
        const worlds = Worlds.parse((await server.call('GET', '/v1/worlds')).json).worlds;
        expect(worlds.find((world) => world.id === `ic-fs4:${sum.provenance.trajectory}`)).toEqual({
          id: `ic-fs4:${sum.provenance.trajectory}`,
          description: expect.stringMatching(
            /^reconstructed from ic-fs4 trajectory ic_bash_multiturn_gpt-4_10_turns_fs_4\.json#\d+$/,
          ),
        });
        const opened = Opened.parse((await server.call('POST', '/v1/envs', { task: id })).json);
        expect(
          Stepped.parse(
            (await server.call('POST', `/v1/envs/${opened.id}/step`, { action: 'echo 55' })).json,
          ).observation,
        ).toBe('55\n');
        const done = Stepped.parse(
          (await server.call('POST', `/v1/envs/${opened.id}/step`, { action: 'submit' })).json,
        );
        expect([done.reward, done.terminated]).toEqual([1, true]);
        expect((await server.call('POST', '/v1/tasks/generate', { dataset: 'nope' })).status).toBe(
          404,
        );
      } finally {
        await server.close();
      }
    }, 120_000);
  },
);

describe.skipIf(!sharedDataAvailable('swe-agent'))(
  'sessions on a reconstructed SWE-agent workspace (marshmallow-1867)',
  () => {
    let trajectory: Trajectory;
    let entry: WorldEntry;
    beforeAll(async () => {
      const [found] = await read(MARSHMALLOW);
      if (found === undefined) throw new Error('no trajectory');
      trajectory = found;
      entry = reconstructed(trajectory).entry;
    });

    it('rejects a verifier that the untouched workspace already satisfies, naming every failed gate', async () => {
      const env = createEnvService({
        now: Date.now,
        newId: () => crypto.randomUUID(),
        worlds: [entry],
      });
      await env.ready;
      // A file the reconstruction restored (one the agent saw), whatever the layout.
      const world = buildTerminalWorld(trajectory);
      const present = world.files().find((path) => !/^\/(bin|usr|dev|proc|etc)\//.test(path));
      if (present === undefined) throw new Error('the reconstruction restored no file');
      const result = await env.tasks.add({
        id: 'marshmallow-lazy',
        goal: trajectory.task ?? '',
        world: { id: entry.id },
        verifier: { checks: [{ check: { kind: 'file-exists', path: present, exists: true } }] },
        oracle: ['ls -F'],
        provenance: { source: 'swe-agent', trajectory: trajectory.externalId, steps: [0] },
      });
      expect(result.accepted).toBe(false);
      expect(result.report.reasons).toEqual([
        `the empty solution passes the verifier (reward 1.00; passing: file ${present} exists)`,
        `the no-op solution (["true"]) passes the verifier (reward 1.00; passing: file ${present} exists)`,
        `the initial world passes the verifier (reward 1.00; passing: file ${present} exists)`,
      ]);
    });

    it('forks mid-episode over HTTP: both sessions answer the recorded actions identically', async () => {
      const env = createEnvService({
        now: Date.now,
        newId: () => crypto.randomUUID(),
        worlds: [entry],
      });
      const server = await serve(env);
      try {
        const opened = Opened.parse(
          (await server.call('POST', '/v1/envs', { world: entry.id, seed: 0 })).json,
        );
        const commands = trajectory.steps.flatMap((step) =>
          step.action.type === 'command' && !step.action.command.startsWith('submit')
            ? [step.action.command]
            : [],
        );
        for (const command of commands.slice(0, 4))
          await server.call('POST', `/v1/envs/${opened.id}/step`, { action: command });
        const fork = Opened.parse((await server.call('POST', `/v1/envs/${opened.id}/fork`)).json);
        const seen: unknown[][] = [];
        for (const id of [opened.id, fork.id]) {
          const outputs: unknown[] = [];
          for (const command of commands.slice(4)) {
            const step = Stepped.parse(
              (await server.call('POST', `/v1/envs/${id}/step`, { action: command })).json,
            );
            outputs.push([step.observation, step.info['provenance']]);
          }
          seen.push(outputs);
        }
        expect(seen[0]?.length).toBe(commands.length - 4);
        expect(seen[1]).toEqual(seen[0]);
        const state = z.object({
          steps: z.number(),
          worldState: z.record(z.string(), z.unknown()),
        });
        const a = state.parse((await server.call('GET', `/v1/envs/${opened.id}/state`)).json);
        const b = state.parse((await server.call('GET', `/v1/envs/${fork.id}/state`)).json);
        expect(b).toEqual(a);
        expect(a.steps).toBe(commands.length);
      } finally {
        await server.close();
      }
    }, 60_000);
  },
);
