import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApiRequestHandler } from './api-routes';

const TOKEN = 'env-clients-token-0123456789';
const SCRIPT = fileURLToPath(
  new URL('../../../../examples/python/check_clients.py', import.meta.url),
);

function runPython(
  env: Record<string, string>,
  args: string[] = [SCRIPT],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const Report = z.object({
  gymnasium: z.object({
    check_env: z.string(),
    reward: z.number(),
    terminated: z.boolean(),
    truncated: z.boolean(),
    fork_same: z.boolean(),
  }),
  verl: z.object({ outputs: z.array(z.string()), reward: z.number() }),
  openrlhf: z.object({
    prompt: z.string(),
    feedback: z.string(),
    reward: z.number(),
    done: z.boolean(),
  }),
  skyrl: z.object({ prompt_turns: z.number(), reward: z.number(), done: z.boolean() }),
});

/**
 * The Python clients in examples/python against a real server: the Gymnasium Env through
 * gymnasium's own check_env (CI installs gymnasium), and the verl, OpenRLHF and SkyRL-gym adapters
 * through their import-free stand-ins (those libraries are not installable here).
 */
describe('examples/python clients against a live environment server', () => {
  let store: Store;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    store = await openMemoryStore();
    const answer = createApiRequestHandler({ store, token: TOKEN, allowedHosts: ['127.0.0.1'] });
    server = createServer((request, response) => {
      if (!answer(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    url = `http://127.0.0.1:${address.port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
    await store.close();
  });

  it('passes check_env, and every adapter solves the builtin task with reward 1', async () => {
    const { code, stdout, stderr } = await runPython({
      TERRARIUM_URL: url,
      TERRARIUM_TOKEN: TOKEN,
    });
    // stderr in the comparison, so a failure shows Python's traceback.
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    const report = Report.parse(JSON.parse(stdout));
    expect(report.gymnasium).toEqual({
      check_env: 'passed',
      reward: 1,
      terminated: true,
      truncated: false,
      fork_same: true,
    });
    expect(report.verl).toEqual({ outputs: ['alpha\nbravo\ncharlie\n', ''], reward: 1 });
    expect(report.openrlhf).toEqual({
      prompt: 'How many lines does /data/notes.txt have? Submit the number as the answer.\n',
      feedback: '\n<output>3 /data/notes.txt\n</output>\n',
      reward: 1,
      done: true,
    });
    expect(report.skyrl).toMatchObject({ prompt_turns: 2, reward: 1, done: true });
  }, 120_000);

  it("shows the field at fault in a refusal's text, and keeps the issues on the error", async () => {
    // Walk 52: `create(seed=-1)` printed `HTTP 400: bad environment request`, the field being in
    // `issues` alone. The message names it now, and what a message leaves out is added from them.
    const probe = [
      'import json, sys',
      `sys.path.insert(0, ${JSON.stringify(dirname(SCRIPT))})`,
      'from terrarium_client import TerrariumClient, TerrariumError',
      'client = TerrariumClient()',
      'said = []',
      'try:',
      "    client.create(task='scratch-last-line', seed=-1)",
      'except TerrariumError as error:',
      '    said.append([str(error), error.issues])',
      "session = client.create(task='scratch-last-line')",
      'try:',
      "    client.step(session['id'], 42)",
      'except TerrariumError as error:',
      '    said.append([str(error), error.issues])',
      "client.delete(session['id'])",
      'print(json.dumps(said))',
    ].join('\n');
    const { code, stdout, stderr } = await runPython(
      { TERRARIUM_URL: url, TERRARIUM_TOKEN: TOKEN },
      ['-c', probe],
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual([
      [
        'HTTP 400: seed: Too small: expected number to be >=0',
        [{ field: 'seed', message: 'Too small: expected number to be >=0' }],
      ],
      [
        'HTTP 400: bad step: send {"action": text | tool call} ' +
          '(action: a shell line, or an OpenAI tool call {"function": {"name", "arguments"}})',
        [
          {
            field: 'action',
            message: 'a shell line, or an OpenAI tool call {"function": {"name", "arguments"}}',
          },
        ],
      ],
    ]);
  }, 60_000);
});
