import { createReadStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { buildBench, scoreItem } from '@terrarium/bench';
import { readTrajectories } from '@terrarium/formats';
import { RunResult, type Trajectory } from '@terrarium/schema';
import { finishedAirlineRun } from '../testing/airline-run';
import { TAU2_AIRLINE } from '../testing/sample-files';
import { classifyObservation, scoreClassified, type ScoringItem } from '@terrarium/fidelity';
import { loadItems } from '@terrarium/fidelity/testing';
import { defaultRuleSetInput } from '@terrarium/rubrics';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRewardService } from '../rulesets/reward-service';
import { startTestServer, type TestServer } from '../testing/test-server';

const RewardBody = z.object({
  ruleSet: z.object({ name: z.string(), version: z.number().nullable() }),
  results: z.array(
    z.object({
      score: z.number().nullable(),
      breakdown: z.array(
        z.object({
          id: z.string(),
          kind: z.string(),
          score: z.number().nullable(),
          weight: z.number(),
          detail: z.string().optional(),
        }),
      ),
    }),
  ),
});
const ErrorBody = z.object({
  error: z.object({
    message: z.string(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })),
  }),
});
const OpenRlhfBody = z.object({
  rewards: z.array(z.number()),
  scores: z.array(z.number()),
  extra_logs: z.record(z.string(), z.array(z.number())),
});

/** Real tau2 airline transitions; each scored as predicted by a shorter prediction of itself. */
let items: ScoringItem[] = [];

function contentScore(prediction: string, item: ScoringItem): number {
  const score = scoreClassified(
    prediction,
    classifyObservation(item.real, item.history, item.action),
  ).score;
  return Math.min(1, Math.max(0, score));
}

async function readTrajectoriesOf(file: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
  }
  return trajectories;
}

/** A plausible wrong prediction: the second half of the observation dropped. */
const halfOf = (text: string) => text.slice(0, Math.ceil(text.length / 2));
const truncated = (item: ScoringItem) => halfOf(item.real);

describe('POST /v1/reward over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    items = (await loadItems('tau2/airline')).slice(0, 40);
    server = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await server.close();
  });

  function post(path: string, body: unknown, headers = server.authHeaders): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  it("scores with a domain's default rule set exactly as the bench's content score", async () => {
    const response = await post('/v1/reward', {
      ruleSet: { name: 'default-tool' },
      items: items.map((item) => ({
        prediction: truncated(item),
        reference: item.real,
        history: item.history,
        action: item.action,
        domain: 'tool',
      })),
    });
    expect(response.status).toBe(200);
    const body = RewardBody.parse(await response.json());
    expect(body.ruleSet).toEqual({ name: 'default-tool', version: null });
    expect(body.results.map((r) => r.score)).toEqual(
      items.map((item) => contentScore(truncated(item), item)),
    );
    expect(body.results[0]?.breakdown.map((e) => [e.id, e.kind])).toEqual([
      ['content', 'rule'],
      ['format', 'criterion'],
      ['facts', 'criterion'],
      ['consistency', 'criterion'],
      ['realism', 'criterion'],
      ['invented-outcome', 'criterion'],
    ]);
  });

  it('takes a bench item as `bench export` writes it: action and history as objects', async () => {
    const { items: benchItems } = buildBench({
      trajectories: (await readTrajectoriesOf(TAU2_AIRLINE)).map((trajectory) => ({
        dataset: 'airline',
        trajectory,
      })),
      name: 'reward-check',
      version: 1,
      sampling: { kind: 'agentworld' },
      seed: 1,
      devFraction: 0,
      createdAt: '2026-12-06T00:00:00Z',
      sources: ['airline'],
    });
    // Items deep into their trajectories: the content score reads the history.
    const chosen = benchItems.filter((item) => item.history.length >= 3).slice(0, 30);
    expect(chosen).toHaveLength(30);
    const response = await post('/v1/reward', {
      ruleSet: { name: 'default-tool' },
      items: chosen.map((item) => ({
        prediction: halfOf(item.real.content),
        reference: item.real.content,
        history: item.history,
        action: item.action,
        domain: item.domain,
      })),
    });
    expect(response.status).toBe(200);
    const body = RewardBody.parse(await response.json());
    // The bench's own content score for the same prediction, as a run stores it.
    const stored = chosen.map(
      (item) =>
        scoreItem(item, 'sim', {
          kind: item.real.kind,
          content: halfOf(item.real.content),
          callId: null,
        }).find((score) => score.source === 'rule' && score.metric === 'content')?.value,
    );
    expect(body.results.map((result) => result.score)).toEqual(stored);
  });

  it(
    "reproduces a run's stored content scores from its results file (`bench results --history`)",
    { timeout: 180_000 },
    async () => {
      // The README's recipe, end to end: a run's results downloaded with their history, each line
      // sent back as a reward item, the default rule set giving the score the run stored.
      // A real run: the shipped airline bench answered by the retrieval simulator.
      const store = await openMemoryStore();
      const { workers, runId } = await finishedAirlineRun(store, ['retrieval']);
      await workers.stop();
      const own = await startTestServer({ store });
      try {
        const download = await fetch(`${own.url}/api/bench/results?run=${runId}&history=1`, {
          headers: own.authHeaders,
        });
        const all = (await download.text())
          .trim()
          .split('\n')
          .map((line) => RunResult.parse(JSON.parse(line)));
        // Items deep into their trajectories, where the content score reads the history.
        const lines = all.filter((line) => (line.history?.length ?? 0) >= 3 && line.predicted);
        expect([lines.length, all.length]).toEqual([44, 84]);
        const response = await fetch(`${own.url}/v1/reward`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...own.authHeaders },
          body: JSON.stringify({
            ruleSet: { name: 'default-tool' },
            items: lines.map((line) => ({
              prediction: line.predicted?.content ?? '',
              reference: line.real.content,
              history: line.history,
              action: line.action,
              domain: line.domain,
            })),
          }),
        });
        const body = RewardBody.parse(await response.json());
        expect(body.results.map((result) => result.score)).toEqual(
          lines.map((line) => line.scores['rule:content']),
        );
        // Unasked, the file holds no history: it would repeat the trajectory for every item.
        const plain = await fetch(`${own.url}/api/bench/results?run=${runId}`, {
          headers: own.authHeaders,
        });
        expect((await plain.text()).includes('"history"')).toBe(false);
      } finally {
        await own.close();
        await store.close();
      }
    },
  );

  it('uses a stored version by name, latest or pinned', async () => {
    const ruleSet = {
      name: 'exact-only',
      rules: [{ id: 'exact', type: 'metric', metric: 'exact-match' }],
    };
    await server.store.saveRuleSetVersion({
      name: 'exact-only',
      document: JSON.stringify(ruleSet),
      ruleSet,
      author: 'test',
      message: 'v1',
    });
    const item = items[0];
    if (item === undefined) throw new Error('no item');
    const body = { prediction: item.real, reference: item.real };
    const pinned = await post('/v1/reward', {
      ruleSet: { name: 'exact-only', version: 1 },
      items: [body],
    });
    expect(await pinned.json()).toEqual({
      ruleSet: { name: 'exact-only', version: 1 },
      results: [{ score: 1, breakdown: [{ id: 'exact', kind: 'rule', score: 1, weight: 1 }] }],
    });
    const missing = await post('/v1/reward', {
      ruleSet: { name: 'exact-only', version: 7 },
      items: [body],
    });
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(await missing.json()).error.issues).toEqual([
      { field: 'ruleSet.version', message: 'no version 7 of exact-only' },
    ]);
    // A built-in rule set has no versions to pin (walk 43: it was called unknown, and listed).
    const builtInPinned = await post('/v1/reward', {
      ruleSet: { name: 'default-tool', version: 1 },
      items: [body],
    });
    expect(builtInPinned.status).toBe(404);
    expect(ErrorBody.parse(await builtInPinned.json()).error.issues).toEqual([
      {
        field: 'ruleSet.version',
        message:
          'default-tool is built in and has no versions: leave out the version, or save it as a rule set of your own (the Rule sets page) and pin one of its versions',
      },
    ]);
    // An unknown name lists the names there are, stored and built in.
    const unknown = await post('/v1/reward', { ruleSet: { name: 'default-sql' }, items: [body] });
    expect(unknown.status).toBe(404);
    expect(ErrorBody.parse(await unknown.json()).error.message).toBe(
      'no rule set default-sql (rule sets: exact-only, default-terminal, default-tool, default-search, default-swe, default-web, default-android, default-os, default-database, default-text-game)',
    );
    // The OpenRLHF route names its URL's fields.
    const openrlhf = await post('/v1/reward/openrlhf?ruleSet=exact-only&version=7', {
      query: ['x'],
      prompts: [''],
      labels: ['x'],
    });
    expect(ErrorBody.parse(await openrlhf.json()).error.issues[0]?.field).toBe('version');
    // A domain no rule set is written for is refused, not scored with its rules left out.
    const typo = await post('/v1/reward', {
      ruleSet: { name: 'exact-only' },
      items: [{ ...body, domain: 'tools' }],
    });
    expect(typo.status).toBe(400);
    expect(ErrorBody.parse(await typo.json()).error.issues[0]?.field).toBe('items.0.domain');
    const urlTypo = await post('/v1/reward/openrlhf?ruleSet=exact-only&domain=tools', {
      query: ['x'],
      prompts: [''],
      labels: ['x'],
    });
    expect(ErrorBody.parse(await urlTypo.json()).error.issues).toEqual([
      {
        field: 'domain',
        message: 'one of terminal, tool, search, swe, web, android, os, database, text-game',
      },
    ]);
  });

  it('gives no reward where nothing in the rule set applies: n/a, not 0', async () => {
    const ruleSet = {
      name: 'terminal-only',
      rules: [
        { id: 'exact', type: 'metric', metric: 'exact-match', scope: { domains: ['terminal'] } },
      ],
    };
    await server.store.saveRuleSetVersion({
      name: 'terminal-only',
      document: JSON.stringify(ruleSet),
      ruleSet,
      author: 'test',
      message: 'v1',
    });
    const native = await post('/v1/reward', {
      ruleSet: { name: 'terminal-only' },
      items: [
        { prediction: 'ok', reference: 'ok', domain: 'tool' },
        { prediction: 'ok', reference: 'ok', domain: 'terminal' },
      ],
    });
    expect(RewardBody.parse(await native.json()).results.map((result) => result.score)).toEqual([
      null,
      1,
    ]);
    // OpenRLHF's rewards are numbers: a batch with such a sample is refused, naming it, unless
    // the URL says what it earns.
    const batch = { query: ['ok', 'ok'], prompts: ['', ''], labels: ['ok', 'ok'] };
    const refused = await post('/v1/reward/openrlhf?ruleSet=terminal-only&domain=tool', batch);
    expect(refused.status).toBe(400);
    const error = ErrorBody.parse(await refused.json()).error;
    expect(error.issues.map((issue) => issue.field)).toEqual(['query.0', 'query.1']);
    expect(error.message).toContain('add &na=NUMBER');
    const given = await post('/v1/reward/openrlhf?ruleSet=terminal-only&domain=tool&na=-1', batch);
    // The rule applies to no sample of the URL's domain: no column, as in every such batch.
    expect(OpenRlhfBody.parse(await given.json())).toEqual({
      rewards: [-1, -1],
      scores: [-1, -1],
      extra_logs: {},
    });
    const scored = await post('/v1/reward/openrlhf?ruleSet=terminal-only&domain=terminal', batch);
    expect(OpenRlhfBody.parse(await scored.json()).rewards).toEqual([1, 1]);
  });

  it('logs a rule that applies to some samples for every sample, n/a as the na value', async () => {
    const ruleSet = {
      name: 'json-and-exact',
      rules: [
        { id: 'exact', type: 'metric', metric: 'exact-match' },
        { id: 'json', type: 'metric', metric: 'json-validity' },
      ],
    };
    await server.store.saveRuleSetVersion({
      name: 'json-and-exact',
      document: JSON.stringify(ruleSet),
      ruleSet,
      author: 'test',
      message: 'v1',
    });
    // JSON validity applies where the reference is JSON: the first sample, not the second.
    const batch = { query: ['{"a": 1}', 'done'], prompts: ['', ''], labels: ['{"a": 1}', 'done'] };
    const withNa = await post('/v1/reward/openrlhf?ruleSet=json-and-exact&na=-1', batch);
    expect(OpenRlhfBody.parse(await withNa.json()).extra_logs).toEqual({
      exact: [1, 1],
      json: [1, -1],
    });
    const without = await post('/v1/reward/openrlhf?ruleSet=json-and-exact', batch);
    expect(OpenRlhfBody.parse(await without.json())).toEqual({
      rewards: [1, 1],
      scores: [1, 1],
      extra_logs: { exact: [1, 1], json: [1, 0] },
    });
  });

  it('answers 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ ruleSet: { name: 'default-tool' }, items: [{ reference: 'x' }] }, 'items.0.prediction'],
      [{ ruleSet: { name: 'default-tool' }, items: [] }, 'items'],
      [{ ruleSet: { name: '' }, items: [{ prediction: 'a', reference: 'b' }] }, 'ruleSet.name'],
      [
        {
          ruleSet: { name: 'inline', rules: [{ id: 'r', type: 'metric', metric: 'bleu' }] },
          items: [{ prediction: 'a', reference: 'b' }],
        },
        'ruleSet.rules.0.metric',
      ],
      // A pattern that does not compile is refused here, not a 500 when the reward runs it.
      [
        {
          ruleSet: { name: 'inline', rules: [{ id: 'p', type: 'pattern', pattern: '(unclosed' }] },
          items: [{ prediction: 'a', reference: 'a' }],
        },
        'ruleSet.rules.0.pattern',
      ],
      [{ items: [{ prediction: 'a', reference: 'b' }] }, 'ruleSet'],
    ];
    for (const [body, field] of cases) {
      const response = await post('/v1/reward', body);
      expect(response.status).toBe(400);
      const error = ErrorBody.parse(await response.json()).error;
      expect(error.issues.map((issue) => issue.field)).toContain(field);
    }
    // A union the body misses names the shapes it takes, not zod's "Invalid input" (walk 52).
    const history = 'expected a string (the prompt), or a list of {action, observation} turns';
    const shapes: [Record<string, unknown>, string, string][] = [
      [{ history: [{ foo: 1 }] }, 'items.0.history', history],
      [{ history: 7 }, 'items.0.history', history],
      [
        { action: { foo: 1 } },
        'items.0.action',
        'expected the action as text, or an action object as a bench item holds it',
      ],
    ];
    for (const [fields, field, message] of shapes) {
      const response = await post('/v1/reward', {
        ruleSet: { name: 'default-tool' },
        items: [{ prediction: 'a', reference: 'b', ...fields }],
      });
      expect([response.status, await response.json()]).toEqual([
        400,
        { error: { message: `${field}: ${message}`, issues: [{ field, message }] } },
      ]);
    }
    const notJson = await fetch(`${server.url}/v1/reward`, {
      method: 'POST',
      headers: server.authHeaders,
      body: '{',
    });
    expect(notJson.status).toBe(400);
  });

  it('scores an inline hybrid rule set', async () => {
    const response = await post('/v1/reward', {
      ruleSet: {
        name: 'inline',
        rules: [
          { id: 'f1', type: 'metric', metric: 'token-f1' },
          { id: 'json', type: 'metric', metric: 'json-validity', weight: 0 },
        ],
        criteria: [{ id: 'is-json', text: 'Valid JSON?', category: 'essential', rule: 'json' }],
      },
      items: [{ prediction: '{"a": 1}', reference: '{"a": 2}' }],
    });
    const body = RewardBody.parse(await response.json());
    const f1 = body.results[0]?.breakdown[0]?.score ?? NaN;
    // rules part = f1; criteria part = 1 (valid JSON); equal weights.
    expect(body.results[0]?.score).toBeCloseTo((f1 + 1) / 2, 12);
  });

  it('is described in the OpenAPI document', async () => {
    const response = await fetch(`${server.url}/v1/openapi.json`, { headers: server.authHeaders });
    const document = z
      .object({
        paths: z.record(z.string(), z.unknown()),
        components: z.object({ schemas: z.record(z.string(), z.unknown()) }),
      })
      .parse(await response.json());
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/reward', '/v1/reward/openrlhf']),
    );
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'RewardRequest',
        'RewardResponse',
        'OpenRlhfRequest',
        'OpenRlhfResponse',
      ]),
    );
  });

  it('refuses callers without the token', async () => {
    const response = await post('/v1/reward', { ruleSet: { name: 'default-tool' }, items: [] }, {});
    expect(response.status).toBe(401);
    // OpenRLHF cannot send a header: its route's refusal says where the token goes instead.
    const openRlhf = await post('/v1/reward/openrlhf?ruleSet=default-tool', { query: ['x'] }, {});
    expect(openRlhf.status).toBe(401);
    expect(
      z.object({ error: z.object({ message: z.string() }) }).parse(await openRlhf.json()).error
        .message,
    ).toBe(
      'add ?token=<token> (printed by terrarium serve) to the URL, or send Authorization: Bearer <token>',
    );
  });

  it("answers OpenRLHF's remote reward protocol with the same scores", async () => {
    const sample = items.slice(0, 8);
    const prompts = sample.map(
      (item) => `${item.history.map((t) => t.observation).join('\n')}\n${item.action}\n`,
    );
    const responsesText = sample.map(truncated);
    const response = await post('/v1/reward/openrlhf?ruleSet=default-tool', {
      query: sample.map((_, i) => `${prompts[i]}${responsesText[i]}`),
      prompts,
      labels: sample.map((item) => item.real),
    });
    expect(response.status).toBe(200);
    const body = OpenRlhfBody.parse(await response.json());
    const native = await post('/v1/reward', {
      ruleSet: { name: 'default-tool' },
      items: sample.map((item, i) => ({
        prediction: responsesText[i],
        reference: item.real,
        history: prompts[i],
      })),
    });
    const scores = RewardBody.parse(await native.json()).results.map((r) => r.score);
    expect(body).toEqual({ rewards: scores, scores, extra_logs: { content: scores } });
    const noRuleSet = await post('/v1/reward/openrlhf', {
      query: ['x'],
      prompts: [''],
      labels: ['x'],
    });
    expect(ErrorBody.parse(await noRuleSet.json()).error.issues[0]?.field).toBe('ruleSet');
    const uneven = await post('/v1/reward/openrlhf?ruleSet=default-tool', {
      query: ['x', 'y'],
      prompts: ['', ''],
      labels: ['x'],
    });
    expect(ErrorBody.parse(await uneven.json()).error.issues[0]?.field).toBe('labels');
  });

  it('refuses an OpenRLHF batch it would score wrongly, naming the field', async () => {
    const refused = async (body: unknown) => {
      const response = await post('/v1/reward/openrlhf?ruleSet=default-tool', body);
      expect(response.status).toBe(400);
      return ErrorBody.parse(await response.json()).error.issues[0];
    };
    // Without references every reward would be 0, and a trainer would learn from that.
    expect(await refused({ query: ['{"a":1}'], prompts: [''] })).toEqual({
      field: 'labels',
      message: "required: each query's reference observation (OpenRLHF: --label_key)",
    });
    expect((await refused({ query: ['{"a":1}'], prompts: [''], labels: [null] }))?.field).toBe(
      'labels.0',
    );
    // Without prompts the prompt's text would be scored as part of each response.
    expect(await refused({ query: ['Pa'], labels: ['a'] })).toEqual({
      field: 'prompts',
      message:
        'required: each query\'s prompt, so that its response can be told apart ("" for a query that is the response alone)',
    });
    // A prompt the query does not hold: the response cannot be told apart from it.
    expect(await refused({ query: ['abc'], prompts: ['zzz'], labels: ['abc'] })).toEqual({
      field: 'prompts.0',
      message: 'query 0 does not contain its prompt, so its response cannot be told apart',
    });
    // Special tokens a decoder left before the prompt do not hide the response.
    const response = await post('/v1/reward/openrlhf?ruleSet=default-tool', {
      query: ['<s>prompt: get_user\n{"a":1}', 'prompt: get_user\n{"a":2}'],
      prompts: ['prompt: get_user\n', 'prompt: get_user\n'],
      labels: ['{"a":1}', '{"a":1}'],
    });
    expect(response.status).toBe(200);
    const { rewards } = OpenRlhfBody.parse(await response.json());
    expect(rewards[0]).toBe(1);
    expect(rewards[1]).toBeLessThan(1);
    // Nor do the end-of-sequence and padding tokens a decoder keeps after the response.
    const ends = [
      '<|im_end|>',
      '</s>',
      '<|endoftext|>',
      '<|eot_id|><|end_of_text|>',
      '<eos><pad><pad>',
    ];
    const ended = await post('/v1/reward/openrlhf?ruleSet=default-tool', {
      query: ends.map((end) => `prompt: get_user\n{"a":1}${end}`),
      prompts: ends.map(() => 'prompt: get_user\n'),
      labels: ends.map(() => '{"a":1}'),
    });
    expect(OpenRlhfBody.parse(await ended.json()).rewards).toEqual(ends.map(() => 1));
  });
});

describe('judge-scored criteria through a configured endpoint', () => {
  let judge: Server;
  let judgeUrl = '';
  let store: Store;
  const prompts: string[] = [];
  beforeAll(async () => {
    store = await openMemoryStore();
    // The judge is a real HTTP server on 127.0.0.1 speaking the OpenAI protocol, answering fixed points.
    judge = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        prompts.push(body);
        const content =
          'Reasoning first. {"format": 5, "facts": 3, "consistency": 5, "realism": 1, "invented-outcome": 1}';
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            model: 'judge',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => judge.listen(0, '127.0.0.1', resolve));
    const address = judge.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    judgeUrl = `http://127.0.0.1:${address.port}/v1`;
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await new Promise<void>((resolve) => judge.close(() => resolve()));
  });

  it('asks once per item for every criterion and combines Σ w·c / Σ|w| with the rules', async () => {
    const service = createRewardService({
      store,
      judgeSpec: `openai:${judgeUrl}#judge`,
      allowlist: ['127.0.0.1'],
    });
    const input = defaultRuleSetInput('tool');
    const batch = await service.score(
      { inline: { ...input, combine: { rules: 1, criteria: 1 } } },
      [{ prediction: '{"status": "ok"}', reference: '{"status": "ok"}', domain: 'tool' }],
    );
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('invented-outcome');
    const result = batch.results[0];
    const criteria = result?.breakdown
      .filter((e) => e.kind === 'criterion')
      .map((e) => [e.id, e.score, e.weight]);
    expect(criteria).toEqual([
      ['format', 1, 1],
      ['facts', 0.5, 1],
      ['consistency', 1, 0.7],
      ['realism', 0, 0.3],
      ['invented-outcome', 1, -0.9],
    ]);
    const rubric = (1 + 0.5 + 0.7 + 0 - 0.9) / (1 + 1 + 0.7 + 0.3 + 0.9);
    expect(result?.score).toBeCloseTo((1 + rubric) / 2, 12);
  });
});
