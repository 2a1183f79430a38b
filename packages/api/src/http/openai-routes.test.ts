import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { Action, type Trajectory } from '@terrarium/schema';
import {
  createOpenAIWorldModel,
  DEFAULT_TEMPLATE,
  predictionInputs,
  renderMessages,
  type PredictionInput,
} from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { findDataset, findTrajectory } from '../simulate/find-trajectory';
import { loadTrajectory } from '../simulate/load-trajectories';
import { bundledOnnxSpec } from '../simulate/onnx-simulator';
import { simulateTrajectory } from '../simulate/simulate-trajectory';
import { TAU2_RETAIL } from '../testing/sample-files';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/test-server';

/**
 * The OpenAI-compatible endpoint over real HTTP on 127.0.0.1, with packages/worlds' own client on
 * the global fetch. The server is the API handler that apps/server's startServer mounts (the api
 * package cannot depend on the app; startServer adds only security headers and static files).
 */
// openai: specs carry no key; this endpoint is Terrarium's own, behind the program token.
const withToken: typeof fetch = (target, init) =>
  fetch(target, {
    ...init,
    headers: {
      ...Object.fromEntries(new Headers(init?.headers)),
      authorization: `Bearer ${TEST_TOKEN}`,
    },
  });

/** An OpenAI-style refusal as status and body, its message naming `param` first. */
function openAIRefusal(status: number, param: string, reason: string): [number, unknown] {
  return [
    status,
    { error: { message: `${param}: ${reason}`, type: 'invalid_request_error', param, code: null } },
  ];
}

async function statusAndBody(response: Response): Promise<[number, unknown]> {
  return [response.status, await response.json()];
}

describe('/v1 (OpenAI-compatible simulator endpoint)', () => {
  let store: Store;
  let server: TestServer;
  let url: string;
  let trajectory: Trajectory;
  let inputs: PredictionInput[];
  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, files, { dataset: 'retail' });
    const detail = await findTrajectory(store, await findDataset(store, 'retail'));
    trajectory = await loadTrajectory(store, detail);
    inputs = [...predictionInputs(trajectory)];
    server = await startTestServer({ store });
    url = server.url;
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await store.close();
  });

  function input(at: number): PredictionInput {
    const found = inputs[at];
    if (found === undefined) throw new Error(`no transition ${at}`);
    return found;
  }

  function post(body: unknown): Promise<Response> {
    return fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify(body),
    });
  }

  it('lists the simulators as model ids', async () => {
    const response = await fetch(`${url}/v1/models`, { headers: server.authHeaders });
    expect(response.status).toBe(200);
    const body: unknown = await response.json();
    expect(body).toMatchObject({ object: 'list' });
    const ids = JSON.stringify(body);
    const bundled = bundledOnnxSpec();
    for (const id of [
      'replay',
      'retrieval',
      'replay@retail',
      'retrieval@retail',
      `${bundled ?? 'onnx:'}@retail`,
    ]) {
      expect(ids).toContain(`"id":"${id}"`);
    }
  });

  it.each([true, false])(
    'replays the recorded observation through the worlds client (stream: %s)',
    async (stream) => {
      const model = createOpenAIWorldModel({
        baseUrl: url,
        model: 'replay@retail',
        fetch,
        apiKey: TEST_TOKEN,
        stream,
        retry: { attempts: 1, baseDelayMs: 0 },
      });
      const known = input(2);
      expect(known.expected.content).toMatch(/^\{"order_id": "#W4923227"/);
      const prediction = await model.predict(known.context, known.history, known.action);
      expect(prediction.observation.content).toBe(known.expected.content);
      expect(prediction.observation.kind).toBe('json');
      expect(prediction.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
      expect(prediction.provenance).toMatchObject({ backend: 'openai', model: 'replay@retail' });
      expect(prediction.provenance.detail?.['usageReported']).toBe(true);
    },
  );

  it('answers every transition of the trajectory exactly, through simulate', async () => {
    const detail = await findTrajectory(store, await findDataset(store, 'retail'));
    const result = await simulateTrajectory(store, detail.id, `openai:${url}#replay@retail`, {
      allowlist: ['127.0.0.1'],
      fetch: withToken,
    });
    expect(result.steps).toHaveLength(4);
    expect(result.steps.map((step) => step.scores['exact-match'])).toEqual([1, 1, 1, 1]);
  });

  it('takes the dataset from the extension field or the header, and streams SSE', async () => {
    const known = input(0);
    const messages = renderMessages(DEFAULT_TEMPLATE, known.context, known.history, known.action);
    const viaField = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ model: 'replay', messages, terrarium: { dataset: 'retail' } }),
    });
    expect(viaField.status).toBe(200);
    const completion: unknown = await viaField.json();
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'replay',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'isabella_lopez_6490' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      terrarium: { provenance: { backend: 'replay', cache: 'hit' } },
    });

    const viaHeader = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TEST_TOKEN}`,
        'x-terrarium-dataset': 'retail',
      },
      body: JSON.stringify({ model: 'replay', messages, stream: true }),
    });
    expect(viaHeader.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = (await viaHeader.text())
      .split('\n\n')
      .filter((event) => event !== '')
      .map((event) => event.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks: unknown[] = events.slice(0, -1).map((event) => JSON.parse(event));
    expect(chunks).toHaveLength(4);
    expect(chunks[1]).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [{ delta: { content: 'isabella_lopez_6490' }, finish_reason: null }],
    });
    expect(chunks[2]).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }] });
    expect(chunks[3]).toMatchObject({ choices: [], usage: { total_tokens: 0 } });
  });

  it('serves retrieval leaving the chat’s own recorded trajectory out, as Compare does', async () => {
    const model = createOpenAIWorldModel({
      baseUrl: url,
      model: 'retrieval@retail',
      fetch,
      apiKey: TEST_TOKEN,
    });
    const known = input(1);
    const prediction = await model.predict(known.context, known.history, known.action);
    // A chat names no trajectory: the one its history and action were recorded in is left out
    // (else its own step would be the nearest and retrieval would be replay).
    expect(prediction.observation.content).not.toBe(known.expected.content);
    const detail = await findTrajectory(store, await findDataset(store, 'retail'));
    const compared = await simulateTrajectory(store, detail.id, 'retrieval');
    expect(prediction.observation.content).toBe(compared.steps[1]?.predicted.content);
  });

  it('serves the bundled ONNX model', async () => {
    const spec = bundledOnnxSpec();
    if (spec === null) throw new Error('no bundled model');
    const known = input(0);
    const response = await post({
      model: spec,
      messages: renderMessages(DEFAULT_TEMPLATE, known.context, known.history, known.action),
      max_tokens: 16,
    });
    expect(response.status).toBe(200);
    const body: unknown = await response.json();
    // The model ends this answer itself within 16 tokens.
    expect(body).toMatchObject({
      model: spec,
      choices: [{ message: { role: 'assistant' }, finish_reason: 'stop' }],
      usage: { completion_tokens: 9 },
      terrarium: {
        provenance: {
          backend: 'onnx',
          model: 'onnx:terrarium-wm-tiny',
          detail: { finishReason: 'eos' },
        },
      },
    });
    // Four tokens cut it: OpenAI clients read that from `finish_reason`, streamed or not.
    const cut = {
      model: spec,
      messages: renderMessages(DEFAULT_TEMPLATE, known.context, known.history, known.action),
      max_tokens: 4,
    };
    expect(await (await post(cut)).json()).toMatchObject({
      choices: [{ finish_reason: 'length' }],
      usage: { completion_tokens: 4 },
      terrarium: { provenance: { detail: { finishReason: 'length' } } },
    });
    const events = (await (await post({ ...cut, stream: true })).text())
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event): unknown => JSON.parse(event.slice('data: '.length)));
    const finishes = events.flatMap((event) =>
      z
        .object({ choices: z.array(z.object({ finish_reason: z.string().nullable() })) })
        .parse(event)
        .choices.flatMap((choice) => (choice.finish_reason === null ? [] : [choice.finish_reason])),
    );
    expect(finishes).toEqual(['length']);

    // Streamed token by token through the worlds client: the same greedy text, in pieces.
    const pieces: string[] = [];
    const model = createOpenAIWorldModel({
      baseUrl: url,
      model: spec,
      fetch,
      apiKey: TEST_TOKEN,
      stream: true,
    });
    const streamed = await model.predict(known.context, known.history, known.action, {
      maxTokens: 16,
      onToken: (text) => pieces.push(text),
    });
    const unstreamed = await createOpenAIWorldModel({
      baseUrl: url,
      model: spec,
      fetch,
      apiKey: TEST_TOKEN,
      stream: false,
    }).predict(known.context, known.history, known.action, { maxTokens: 16 });
    expect(streamed.observation.content).toBe(unstreamed.observation.content);
    expect(pieces.join('')).toBe(streamed.observation.content);
    expect(pieces.length).toBeGreaterThan(1);
    expect(streamed.usage).toEqual(unstreamed.usage);
  }, 60_000);

  it('samples the bundled model afresh without a seed, says the seed, and redoes a sample with it', async () => {
    const spec = bundledOnnxSpec();
    if (spec === null) throw new Error('no bundled model');
    const known = input(0);
    const Sampled = z.object({
      choices: z.array(z.object({ message: z.object({ content: z.string() }) })),
      terrarium: z.object({ provenance: z.object({ detail: z.object({ seed: z.number() }) }) }),
    });
    // null parameters are "not given", as OpenAI's API reads them (wrappers send them).
    const request = {
      model: spec,
      messages: renderMessages(DEFAULT_TEMPLATE, known.context, known.history, known.action),
      temperature: 1.5,
      max_tokens: 12,
      seed: null,
      stop: null,
      stream: null,
      n: null,
    };
    const samples = [];
    for (let n = 0; n < 3; n++) {
      const response = await post(request);
      expect(response.status).toBe(200);
      samples.push(Sampled.parse(await response.json()));
    }
    const seeds = samples.map((sample) => sample.terrarium.provenance.detail.seed);
    expect(new Set(seeds).size).toBe(3);
    const [first] = samples;
    if (first === undefined) throw new Error('no sample');
    const redone = Sampled.parse(
      await (await post({ ...request, seed: first.terrarium.provenance.detail.seed })).json(),
    );
    expect(redone.choices[0]?.message.content).toBe(first.choices[0]?.message.content);
  }, 60_000);

  it('gives the bundled model a dataset’s neighbors, the first being /v1 retrieval’s answer', async () => {
    const spec = bundledOnnxSpec();
    if (spec === null) throw new Error('no bundled model');
    const known = input(2);
    const messages = renderMessages(DEFAULT_TEMPLATE, known.context, known.history, known.action);
    const Completion = z.object({
      choices: z.array(z.object({ message: z.object({ content: z.string() }) })),
    });
    const Answer = Completion.extend({
      terrarium: z.object({
        provenance: z.object({ detail: z.object({ neighbors: z.number() }) }),
        neighbors: z.array(z.object({ action: Action, observation: z.string() })).optional(),
      }),
    });
    const answerOf = async (body: unknown) => {
      const response = await post(body);
      expect(response.status).toBe(200);
      return Answer.parse(await response.json());
    };
    const withNeighbors = await answerOf({
      model: spec,
      messages,
      max_tokens: 8,
      terrarium: { dataset: 'retail', neighbors: true },
    });
    const shown = withNeighbors.terrarium.neighbors ?? [];
    expect(shown.length).toBe(2);
    expect(withNeighbors.terrarium.provenance.detail.neighbors).toBe(shown.length);
    // The same index and leave-out as retrieval: the chat's own recorded run is not among them.
    const retrieval = Completion.parse(
      await (await post({ model: 'retrieval@retail', messages })).json(),
    );
    expect(shown[0]?.observation).toBe(retrieval.choices[0]?.message.content);
    expect(shown[0]?.observation).not.toBe(known.expected.content);

    // Without a dataset the model reads the action alone; without asking, no list.
    const alone = await answerOf({
      model: spec,
      messages,
      max_tokens: 8,
      terrarium: { neighbors: true },
    });
    expect(alone.terrarium.provenance.detail.neighbors).toBe(0);
    expect(alone.terrarium.neighbors).toBeUndefined();
    const unasked = await answerOf({
      model: spec,
      messages,
      max_tokens: 8,
      terrarium: { dataset: 'retail' },
    });
    expect(unasked.terrarium.provenance.detail.neighbors).toBe(2);
    expect(unasked.terrarium.neighbors).toBeUndefined();
    // A client that sets only a model name (Terrarium's own openai: simulators) names the
    // dataset in it, and gets the same neighbors.
    const named = await answerOf({
      model: `${spec}@retail`,
      messages,
      max_tokens: 8,
      terrarium: { neighbors: true },
    });
    expect(named.terrarium.neighbors).toEqual(shown);
    expect(named.choices[0]?.message.content).toBe(withNeighbors.choices[0]?.message.content);
  }, 60_000);

  it('answers 400 naming the field when the dataset or the model is missing', async () => {
    const known = input(0);
    const messages = renderMessages(DEFAULT_TEMPLATE, known.context, known.history, known.action);
    const noDataset = await post({ model: 'retrieval', messages });
    expect(noDataset.status).toBe(400);
    expect(await noDataset.json()).toMatchObject({
      error: { param: 'terrarium.dataset', type: 'invalid_request_error' },
    });
    const unknownModel = await post({ model: 'openai:http://127.0.0.1:1#x', messages });
    expect(unknownModel.status).toBe(404);
    expect(await unknownModel.json()).toMatchObject({ error: { param: 'model' } });
    const badMessages = await post({ model: 'replay@retail', messages: [messages[0]] });
    expect(badMessages.status).toBe(400);
    expect(await badMessages.json()).toMatchObject({ error: { param: 'messages' } });
    const noModel = await post({ messages });
    expect(noModel.status).toBe(400);
    expect(await noModel.json()).toMatchObject({ error: { param: 'model' } });
    const choices = await post({ model: 'replay@retail', messages, n: 3 });
    expect(choices.status).toBe(400);
    expect(await choices.json()).toMatchObject({
      error: { param: 'n', message: 'n: only 1 choice per request is served' },
    });
  });

  it('blames an unknown dataset on where the client named it, listing the datasets there are', async () => {
    const known = input(0);
    const messages = renderMessages(DEFAULT_TEMPLATE, known.context, known.history, known.action);
    const unknown = 'no dataset "nope" (datasets: retail)';
    // Walk 52: a dataset named in the model id was blamed on `terrarium.dataset`, never sent.
    expect(await statusAndBody(await post({ model: 'retrieval@nope', messages }))).toEqual(
      openAIRefusal(404, 'model', unknown),
    );
    expect(
      await statusAndBody(
        await post({ model: 'replay', messages, terrarium: { dataset: 'nope' } }),
      ),
    ).toEqual(openAIRefusal(404, 'terrarium.dataset', unknown));
    const inHeader = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TEST_TOKEN}`,
        'x-terrarium-dataset': 'nope',
      },
      body: JSON.stringify({ model: 'retrieval', messages }),
    });
    expect(await statusAndBody(inHeader)).toEqual(
      openAIRefusal(404, 'x-terrarium-dataset', unknown),
    );
  });

  /** The status and body the chat `messages` get from `replay@retail`. */
  async function answer(messages: unknown[]): Promise<[number, unknown]> {
    return statusAndBody(await post({ model: 'replay@retail', messages }));
  }

  it('says a role no chat of a world model has is not one, naming those it has', async () => {
    const system = { role: 'system', content: 'Domain: tool' };
    const expected =
      'expected "system" (the setting, first), "user" (an action) or "assistant" (its observation)';
    // Walk 52: `wizard` was told `expected "user": the last message is the current action`.
    expect(await answer([system, { role: 'wizard', content: 'ls' }])).toEqual(
      openAIRefusal(400, 'messages[1].role', `"wizard" is not a role of this chat: ${expected}`),
    );
    // OpenAI's own roles this chat does not take are named the same way, and a long one is cut.
    expect(await answer([{ role: 'tool', content: 'ls' }])).toEqual(
      openAIRefusal(400, 'messages[0].role', `"tool" is not a role of this chat: ${expected}`),
    );
    expect(await answer([system, { role: 'w'.repeat(100), content: 'ls' }])).toEqual(
      openAIRefusal(
        400,
        'messages[1].role',
        `"${'w'.repeat(40)}…" is not a role of this chat: ${expected}`,
      ),
    );
    // A known role in the wrong place is still told where it belongs.
    expect(await answer([{ role: 'assistant', content: 'ok' }])).toEqual(
      openAIRefusal(
        400,
        'messages[0].role',
        'expected "user": the last message is the current action',
      ),
    );
  });
});
