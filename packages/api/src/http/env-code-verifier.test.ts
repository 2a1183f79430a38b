import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../testing/test-server';

const CODE_TASK = {
  id: 'user.code-shout',
  goal: 'Write HELLO into /data/shout.txt, then submit.',
  world: { id: 'scratch', params: { files: 1 } },
  verifier: {
    checks: [
      {
        name: 'shouted',
        check: {
          kind: 'code',
          language: 'typescript',
          source: `export function score(item: { reference: string }) {
  const seen: { files: Record<string, string | null> } = JSON.parse(item.reference);
  const text = seen.files['/data/shout.txt'] ?? '';
  return { score: text.trim() === 'HELLO' ? 1 : 0, detail: 'saw ' + JSON.stringify(text) };
}`,
          files: ['/data/shout.txt'],
          timeoutMs: 5000,
        },
      },
    ],
  },
  oracle: ['echo HELLO > /data/shout.txt', 'submit'],
  provenance: { source: 'user', trajectory: null, steps: [] },
};

const Added = z.object({
  accepted: z.boolean(),
  report: z.object({ reasons: z.array(z.string()) }),
});
const Stepped = z.object({
  reward: z.number(),
  terminated: z.boolean(),
  info: z.object({
    evaluation: z
      .object({
        breakdown: z.array(z.object({ name: z.string(), passed: z.boolean(), detail: z.string() })),
      })
      .optional(),
  }),
});

/** Code verifiers over real HTTP: the default env service runs them in the rubrics' worker pool. */
describe('tasks with code verifiers (QuickJS worker pool behind /v1/tasks and /v1/envs)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await server.close();
  });

  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  }

  // Timeouts: the first run starts the worker pool (tsx, esbuild, QuickJS) on a shared machine.
  it(
    'accepts a task whose TypeScript verifier passes the oracle only, and scores an episode with it',
    { timeout: 60_000 },
    async () => {
      const added = await call('POST', '/v1/tasks', CODE_TASK);
      expect([added.status, Added.parse(added.json)]).toEqual([
        201,
        { accepted: true, report: expect.objectContaining({ reasons: [] }) },
      ]);
      const opened = z
        .object({ id: z.string() })
        .parse((await call('POST', '/v1/envs', { task: CODE_TASK.id })).json);
      await call('POST', `/v1/envs/${opened.id}/step`, { action: 'echo hello > /data/shout.txt' });
      const wrong = await call('POST', `/v1/envs/${opened.id}/evaluate`);
      expect(wrong.json).toMatchObject({
        reward: 0,
        breakdown: [
          { name: 'shouted', passed: false, detail: 'scored 0, needs 1 (saw "hello\\n")' },
        ],
      });
      await call('POST', `/v1/envs/${opened.id}/step`, { action: 'echo HELLO > /data/shout.txt' });
      const done = Stepped.parse(
        (await call('POST', `/v1/envs/${opened.id}/step`, { action: 'submit' })).json,
      );
      expect([done.reward, done.terminated, done.info.evaluation?.breakdown]).toEqual([
        1,
        true,
        [{ name: 'shouted', weight: 1, passed: true, detail: '' }].map(
          ({ weight: _w, ...rest }) => rest,
        ),
      ]);
    },
  );

  it(
    'refuses a task whose verifier code never ends, naming the time limit (422)',
    { timeout: 60_000 },
    async () => {
      const stuck = {
        ...CODE_TASK,
        id: 'user.code-stuck',
        verifier: {
          checks: [
            { check: { kind: 'code', source: 'function score() { for (;;) {} }', timeoutMs: 50 } },
          ],
        },
      };
      const added = await call('POST', '/v1/tasks', stuck);
      expect(added.status).toBe(422);
      expect(Added.parse(added.json).report.reasons[0]).toBe(
        'the oracle solution fails the verifier: the javascript verifier scores at least 1 (the verifier code failed: timed out after 50 ms)',
      );
    },
  );
});
