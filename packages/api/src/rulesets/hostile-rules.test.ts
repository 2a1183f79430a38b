import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../testing/test-server';

const RewardBody = z.object({
  results: z.array(
    z.object({
      score: z.number().nullable(),
      breakdown: z.array(
        z.object({ id: z.string(), score: z.number().nullable(), detail: z.string().optional() }),
      ),
    }),
  ),
});

/**
 * Hostile custom rules through the real reward route: each ends in a clear error for that rule
 * (scored 0, the reason in `detail`) while the same server keeps answering health requests.
 */
const HOSTILE: [string, string, string | RegExp][] = [
  ['an infinite loop', 'function score() { while (true) {} }', 'error: timed out after 300 ms'],
  [
    'a 1 GB allocation',
    'function score() { return new Uint8Array(1024 * 1024 * 1024).length }',
    'error: exceeded the memory limit of 32 MB',
  ],
  [
    'reading files',
    'function score() { return require("fs").readFileSync("/etc/passwd").length }',
    /^error: ReferenceError: require is not defined/,
  ],
  [
    'opening a socket',
    'function score() { return new WebSocket("ws://127.0.0.1:1") }',
    /^error: ReferenceError: WebSocket is not defined/,
  ],
  [
    'touching process',
    'function score() { process.kill(process.pid); return 1 }',
    /^error: ReferenceError: process is not defined/,
  ],
  [
    'deep recursion',
    'function score() { return (function f() { return f() + 1 })() }',
    'error: stack overflow (recursion too deep)',
  ],
];

describe('custom rules in the sandbox worker pool, over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await server.close();
  });

  function reward(source: string, language = 'javascript', timeoutMs = 300): Promise<Response> {
    return fetch(`${server.url}/v1/reward`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.authHeaders },
      body: JSON.stringify({
        ruleSet: {
          name: 'hostile',
          rules: [
            { id: 'custom', type: 'custom', language, source, timeoutMs },
            { id: 'exact', type: 'metric', metric: 'exact-match' },
          ],
        },
        items: [{ prediction: 'ok', reference: 'ok' }],
      }),
    });
  }

  it('scores a well-behaved TypeScript rule', { timeout: 30_000 }, async () => {
    const response = await reward(
      'export function score(item: { prediction: string }): number { return item.prediction === "ok" ? 0.5 : 0 }',
      'typescript',
      // Generous: the first run of a fresh worker compiles the wasm interpreter on a busy machine.
      5_000,
    );
    const body = RewardBody.parse(await response.json());
    expect(body.results[0]?.breakdown[0]).toEqual({ id: 'custom', score: 0.5 });
    expect(body.results[0]?.score).toBeCloseTo(0.75, 12);
  });

  it('says when a rule returned a score off [0, 1]', { timeout: 30_000 }, async () => {
    const seen = [];
    for (const value of ['5', '-1']) {
      const response = await reward(`function score() { return ${value} }`, 'javascript', 5_000);
      seen.push(RewardBody.parse(await response.json()).results[0]?.breakdown[0]);
    }
    expect(seen).toEqual([
      { id: 'custom', score: 1, detail: 'returned 5, clipped to 1 (a score is in [0, 1])' },
      { id: 'custom', score: 0, detail: 'returned -1, clipped to 0 (a score is in [0, 1])' },
    ]);
  });

  it(
    'refuses a rule set whose custom rule can score nothing, naming the rule',
    { timeout: 30_000 },
    async () => {
      // walk 43: `function nope(){}` answered 200 with every item scored 0, so a typo gave a whole
      // training run reward 0.
      const refusals = [];
      for (const source of [
        'function nope() {}',
        'function score( {',
        'throw new Error("setup")',
      ]) {
        const response = await reward(source, 'javascript', 5_000);
        refusals.push([response.status, await response.json()]);
      }
      const noScore =
        'the rule defines no function score(item) (write `function score(item) { … }` or `export function score`)';
      expect(refusals[0]).toEqual([
        400,
        {
          error: {
            message: `ruleSet.rules.0.source: ${noScore}`,
            issues: [{ field: 'ruleSet.rules.0.source', message: noScore }],
          },
        },
      ]);
      expect(refusals.map(([status]) => status)).toEqual([400, 400, 400]);
      expect(JSON.stringify(refusals[1])).toContain('ruleSet.rules.0.source: does not compile');
      expect(JSON.stringify(refusals[2])).toContain('ruleSet.rules.0.source: Error: setup');
    },
  );

  it('answers health while a rule loops forever', { timeout: 30_000 }, async () => {
    let rewardDone = false;
    const pending = reward('function score() { for (;;) {} }').then((response) => {
      rewardDone = true;
      return response;
    });
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    // Health was answered while the looping rule was still running in its worker.
    expect(rewardDone).toBe(false);
    expect((await pending).status).toBe(200);
  });

  it.each(HOSTILE)(
    '%s ends in a clear error while health answers',
    { timeout: 30_000 },
    async (_name, source, detail) => {
      const pending = reward(source);
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(200);
      const response = await pending;
      expect(response.status).toBe(200);
      const body = RewardBody.parse(await response.json());
      const [custom, exact] = body.results[0]?.breakdown ?? [];
      expect(custom?.score).toBe(0);
      expect(custom?.detail).toMatch(detail);
      // The other rule of the same item still scores.
      expect(exact?.score).toBe(1);
      // The server still serves the next request normally.
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    },
  );
});
