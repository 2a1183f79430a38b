import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/test-server';

const run = promisify(execFile);
const EXAMPLES = fileURLToPath(new URL('../../../../examples/reward/', import.meta.url));

/** The Python examples of examples/reward, run against a real server as a user would run them. */
describe('examples/reward (Python clients)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await server.close();
  });

  async function python(script: string): Promise<string> {
    const { stdout } = await run('python3', [script], {
      cwd: EXAMPLES,
      env: { ...process.env, TERRARIUM_URL: server.url, TERRARIUM_TOKEN: server.token },
      timeout: 30_000,
    });
    return stdout.trim();
  }

  it('openrlhf_client.py gets rewards, scores and logs', { timeout: 40_000 }, async () => {
    const out = await python('openrlhf_client.py');
    // The exact copy scores 1; "pending" contradicts the real "delivered".
    expect(out).toMatch(
      /^\{'rewards': \[1(\.0)?, 0\.\d+\], 'scores': \[1(\.0)?, 0\.\d+\], 'extra_logs': \['content'\]\}$/,
    );
  });

  it('verl_reward.py scores one item and a batch', { timeout: 40_000 }, async () => {
    const [single, batch] = (await python('verl_reward.py')).split('\n');
    expect(single).toMatch(/^\{'score': 0\.\d+, 'content': 0\.\d+\}$/);
    expect(batch).toMatch(/^\[1(\.0)?, 0(\.0)?\]$/);
  });

  it('openrlhf_reward_func.py returns the batch', { timeout: 40_000 }, async () => {
    expect(await python('openrlhf_reward_func.py')).toMatch(/'rewards': (tensor\()?\[0\.\d+\]/);
  });
});
