/// <reference types="node" />
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worldModelMessages } from '@terrarium/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { officialRows, readRealTrajectories } from '../bench/official-rows.testkit';
import { readPromptFolder } from '../bench/prompt-folder-files';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/test-server';

const ChatBody = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  temperature: z.number().optional(),
  max_tokens: z.number().optional(),
});
type ChatBody = z.infer<typeof ChatBody>;
const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })),
});

const REPLY =
  '<think>reasoning <predicted_observation>decoy</predicted_observation></think>\n' +
  '<predicted_observation>\n{"simulated": true}\n</predicted_observation>';

/** A recording OpenAI-compatible endpoint on 127.0.0.1. */
async function startRecorder(): Promise<{ url: string; bodies: ChatBody[]; server: Server }> {
  const bodies: ChatBody[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = ChatBody.parse(JSON.parse(text));
      bodies.push(body);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: body.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}/v1`, bodies, server };
}

/**
 * `serve --prompts DIR` reaches /v1/chat/completions: an official client's chat (real tau2 retail
 * rows) is passed on to the `openai:` endpoint unchanged, with the official sampling and parsing.
 */
describe('/v1 with a prompt folder speaks the official protocol to openai: simulators', () => {
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  let server: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'awb-v1-prompts-'));
  const previous = process.env['TERRARIUM_SIMULATORS'];
  let spec = '';
  beforeAll(async () => {
    recorder = await startRecorder();
    spec = `openai:${recorder.url}#wm`;
    process.env['TERRARIUM_SIMULATORS'] = spec;
    mkdirSync(join(dir, 'mcp'));
    writeFileSync(join(dir, 'mcp', 'system_prompt.txt'), 'Simulate the MCP tools.\n');
    writeFileSync(join(dir, 'mcp', 'judge_system_prompt.txt'), 'Judge MCP simulations.\n');
    writeFileSync(join(dir, 'judge_user_prompt.txt'), '{context}\n{predicted_observation}\n');
    server = await startTestServer({ prompts: await readPromptFolder(dir) });
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(server.store, files, { dataset: 'retail' });
  }, 60_000);
  afterAll(async () => {
    if (previous === undefined) delete process.env['TERRARIUM_SIMULATORS'];
    else process.env['TERRARIUM_SIMULATORS'] = previous;
    await server.close();
    await new Promise((resolve) => recorder.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards the chat byte-identical, at temperature 0.6 and 32768 tokens, and parses the tag', async () => {
    const rows = officialRows((await readRealTrajectories([TAU2_RETAIL])).slice(0, 1), {
      task: 'mcp',
      firstId: 145256090131919,
      systemStr: 'You are a Tool World Model for a retail store.',
    });
    const row = rows.find((candidate) => candidate.turn_idx === 3);
    if (row === undefined) throw new Error('no third turn');
    const messages = worldModelMessages({
      systemPrompt: row.system_str,
      prompts: row.prompt,
      responses: row.response,
      currentPrompt: row.current_prompt,
      turnIdx: row.turn_idx,
    });
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ model: spec, messages }),
    });
    expect(response.status).toBe(200);
    const body = Completion.parse(await response.json());
    expect(body.choices[0]?.message.content).toBe('{"simulated": true}');
    expect(recorder.bodies).toHaveLength(1);
    const sent = recorder.bodies[0];
    expect(sent?.messages).toEqual(messages);
    expect(sent?.temperature).toBe(0.6);
    expect(sent?.max_tokens).toBe(32768);
  }, 60_000);

  it("simulate through the server (/api/simulate) uses the folder's system prompt and the row layout", async () => {
    recorder.bodies.length = 0;
    const response = await fetch(`${server.url}/api/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ dataset: 'retail', sim: spec, maxSteps: 2 }),
    });
    expect(response.status).toBe(200);
    expect(recorder.bodies).toHaveLength(2);
    const [first, second] = recorder.bodies;
    expect(first?.messages[0]).toEqual({ role: 'system', content: 'Simulate the MCP tools.\n' });
    expect(first?.messages).toHaveLength(2);
    expect(first?.messages[1]?.content.startsWith('### Turn 1\n**Action:**\n')).toBe(true);
    expect(second?.messages).toHaveLength(4);
    expect(second?.messages[2]?.content.startsWith('**Environment Observation:**\n')).toBe(true);
    expect(second?.messages[3]?.content.startsWith('### Turn 2\n**Action:**\n')).toBe(true);
    expect(second?.temperature).toBe(0.6);
    expect(second?.max_tokens).toBe(32768);
    // An unknown trajectory: 404, the issue naming its field once.
    const missing = await fetch(`${server.url}/api/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ dataset: 'retail', trajectory: 'nope', sim: spec }),
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        message: 'trajectory: no trajectory "nope" in dataset "retail"',
        issues: [{ field: 'trajectory', message: 'no trajectory "nope" in dataset "retail"' }],
      },
    });
    // A misspelt field is refused by name, not ignored (max_steps would have simulated them all).
    const misspelt = await fetch(`${server.url}/api/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ dataset: 'retail', sim: spec, max_steps: 1 }),
    });
    expect(misspelt.status).toBe(400);
    expect(await misspelt.json()).toEqual({
      error: {
        message: 'max_steps: unknown field',
        issues: [{ field: 'max_steps', message: 'unknown field' }],
      },
    });
    expect(recorder.bodies).toHaveLength(2);
  }, 60_000);

  it('simulate.run over tRPC uses the folder too', async () => {
    recorder.bodies.length = 0;
    const page = await server.store.listTrajectories({}, { offset: 0, limit: 1 });
    const trajectoryId = page.rows[0]?.id;
    if (trajectoryId === undefined) throw new Error('no trajectory');
    const response = await fetch(`${server.url}/trpc/simulate.run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ trajectoryId, sim: spec, maxSteps: 1 }),
    });
    expect(response.status).toBe(200);
    expect(recorder.bodies).toHaveLength(1);
    expect(recorder.bodies[0]?.messages[0]).toEqual({
      role: 'system',
      content: 'Simulate the MCP tools.\n',
    });
    expect(recorder.bodies[0]?.temperature).toBe(0.6);
  }, 60_000);
});
