/// <reference types="node" />
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@terrarium/db';
import { sharedDataPath } from '@terrarium/schema/testing';
import { worldModelMessages } from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  officialRows,
  readRealTrajectories,
  type OfficialRow,
} from '../bench/official-rows.testkit';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/test-server';

const SWE_TRAJECTORY = sharedDataPath(
  'swe-agent/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj',
);

const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })),
});
const Provenance = z.object({
  terrarium: z.object({ provenance: z.record(z.string(), z.unknown()) }),
});
const OpenAIError = z.object({
  error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable() }),
});

/** The chat the official script sends for a row (packages/worlds mirrors its construction). */
function officialChat(row: OfficialRow) {
  return worldModelMessages({
    systemPrompt: row.system_str,
    prompts: row.prompt,
    responses: row.response,
    currentPrompt: row.current_prompt,
    turnIdx: row.turn_idx,
  });
}

/** The recorded observation without its marker, as the official scorer cleans it. */
function groundTruth(row: OfficialRow): string {
  return (row.response[row.turn_idx - 1] ?? '').replace(/^\*\*Environment Observation:\*\*\n/, '');
}

/**
 * An unmodified AgentWorldBench client against /v1: rows in the official shape (system_str as the
 * system prompt, markers on every turn, full lists), built from real tau2 retail and SWE-agent runs,
 * imported as a dataset and replayed over real HTTP on 127.0.0.1.
 */
describe('/v1 serves the official AgentWorldBench client (real tau2 retail and SWE-agent)', () => {
  let server: TestServer;
  let store: Store;
  let rows: OfficialRow[];
  const folder = mkdtempSync(join(tmpdir(), 'awb-v1-'));
  beforeAll(async () => {
    server = await startTestServer();
    store = server.store;
    const mcp = officialRows((await readRealTrajectories([TAU2_RETAIL])).slice(0, 6), {
      task: 'mcp',
      firstId: 145256090131919,
      systemStr: 'You simulate the tools of a retail store. Reply with the tool output only.',
    });
    const swe = officialRows(await readRealTrajectories([SWE_TRAJECTORY]), {
      task: 'swe',
      firstId: 245256090131919,
      systemStr: 'You simulate a repository shell for a software agent.',
    });
    rows = [...mcp, ...swe];
    writeFileSync(
      join(folder, 'mcp_test.jsonl'),
      mcp.map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    writeFileSync(
      join(folder, 'swe_test.jsonl'),
      swe.map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    const files = (await collectDataFiles([folder])).map(readDataFile);
    await importFiles(store, files, { dataset: 'awb' });
  }, 120_000);
  afterAll(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  function post(body: unknown): Promise<Response> {
    return fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify(body),
    });
  }

  it('answers every row with its recorded observation (model replay@DATASET)', async () => {
    expect(rows.length).toBe(32);
    expect(new Set(rows.map((row) => row.task))).toEqual(new Set(['mcp', 'swe']));
    const wrong: string[] = [];
    for (const row of rows) {
      const response = await post({
        model: 'replay@awb',
        messages: officialChat(row),
        max_tokens: 32768,
        temperature: 0.6,
      });
      const body = Completion.safeParse(await response.json());
      const content = body.success ? body.data.choices[0]?.message.content : undefined;
      if (response.status !== 200 || content !== groundTruth(row)) {
        wrong.push(`${row.id}@${row.turn_idx}: ${response.status}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('cuts a recorded answer at `stop`, as a model would have ended it', async () => {
    const row = rows.find((candidate) => groundTruth(candidate).length > 40);
    if (row === undefined) throw new Error('no long row');
    const truth = groundTruth(row);
    const stop = truth.slice(20, 26);
    const response = await post({ model: 'replay@awb', messages: officialChat(row), stop: [stop] });
    const body = Completion.parse(await response.json());
    expect(body.choices[0]?.message.content).toBe(truth.slice(0, truth.indexOf(stop)));
    expect(truth.indexOf(stop)).toBeGreaterThan(0);
  });

  it('answers an unrecorded action with an OpenAI-style error naming why, never an empty 200', async () => {
    const row = rows[2];
    if (row === undefined) throw new Error('no row');
    // A call of a tool that no recorded run made.
    const edited = {
      ...row,
      current_prompt: row.current_prompt.replace('{"name":"', '{"name":"x_'),
    };
    expect(edited.current_prompt).not.toBe(row.current_prompt);
    const response = await post({ model: 'replay@awb', messages: officialChat(edited) });
    expect(response.status).toBe(404);
    const body = OpenAIError.parse(await response.json());
    expect(body.error.param).toBe('model');
    expect(body.error.message).toBe(
      'model: replay@awb: no recorded transition with this history and action in the dataset; name a fallback for misses, e.g. "replay@awb+retrieval" or "replay@awb+openai:URL#MODEL"',
    );

    // Retrieval misses a tool nobody recorded too, so its advice names fallbacks that answer.
    const unlike = await post({
      model: 'retrieval@awb',
      messages: [{ role: 'user', content: 'qzxwvj' }],
    });
    expect(unlike.status).toBe(404);
    expect(OpenAIError.parse(await unlike.json()).error.message).toMatch(
      /; name a fallback for misses, e\.g\. "retrieval@awb\+onnx:models\/terrarium-wm-tiny" or "retrieval@awb\+openai:URL#MODEL"$/,
    );
    // Log-probabilities are refused, not answered with null.
    const logprobs = await post({
      model: 'replay@awb',
      messages: officialChat(row),
      logprobs: true,
    });
    expect(logprobs.status).toBe(400);
    expect(OpenAIError.parse(await logprobs.json()).error).toMatchObject({
      param: 'logprobs',
      message: 'logprobs: token log-probabilities are not served',
    });

    // An edited argument of a recorded tool: replay misses, retrieval answers from the same tool.
    const lookup = rows.find((candidate) => candidate.current_prompt.includes('get_user_details'));
    if (lookup === undefined) throw new Error('no get_user_details row');
    const other = {
      ...lookup,
      current_prompt: lookup.current_prompt.replace(/"user_id":"[^"]+"/, '"user_id":"nobody_1"'),
    };
    expect((await post({ model: 'replay@awb', messages: officialChat(other) })).status).toBe(404);
    const fallback = await post({ model: 'replay@awb+retrieval', messages: officialChat(other) });
    expect(fallback.status).toBe(200);
    const answered = Completion.parse(await fallback.json());
    expect(answered.choices[0]?.message.content).toMatch(/^\{"user_id": "/);
    // A recorded row still comes from the recording, not from the fallback.
    const recorded = await post({ model: 'replay@awb+retrieval', messages: officialChat(row) });
    expect(Completion.parse(await recorded.json()).choices[0]?.message.content).toBe(
      groundTruth(row),
    );
  }, 60_000);

  it('answers a recorded call out of its context from the fallback, and from the recording only under cache@', async () => {
    const lookup = rows.find((candidate) => candidate.current_prompt.includes('get_user_details'));
    if (lookup === undefined) throw new Error('no get_user_details row');
    // The call alone: no system prompt, no history. Replay does not recognise it.
    const bare = officialChat({ ...lookup, system_str: '', prompt: [], response: [], turn_idx: 0 });
    const provenanceOf = async (model: string) => {
      const response = await post({ model, messages: bare });
      expect(response.status).toBe(200);
      return Provenance.parse(await response.json()).terrarium.provenance;
    };
    const fallback = 'onnx:models/terrarium-wm-tiny';
    // Before, a cache of every recorded call sat between replay and the fallback and answered
    // with the recorded response: the model named as the fallback was never asked.
    expect(await provenanceOf(`replay@awb+${fallback}`)).toMatchObject({ backend: 'onnx' });
    expect(await provenanceOf(`cache@awb+${fallback}`)).toMatchObject({
      backend: 'cache-then-model',
      cache: 'hit',
      detail: { from: 'recording' },
    });
    const unnamed = await post({ model: 'cache@awb', messages: bare });
    expect(unnamed.status).toBe(400);
    expect(OpenAIError.parse(await unnamed.json()).error.message).toContain(
      'cache@DATASET needs a fallback for calls the dataset never recorded',
    );
  }, 120_000);
});
