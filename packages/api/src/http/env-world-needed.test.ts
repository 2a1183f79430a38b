import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createEnvService, trajectoryWorldEntry } from '@terrarium/curriculum';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../testing/test-server';

const WORLD = 'swe:marshmallow';
// The MD5 digest of no input, as md5sum prints it.
const MD5_OF_NOTHING = 'd41d8cd98f00b204e9800998ecf8427e  -';

/** The shipped SWE-agent run on marshmallow (MIT, demo/data; sharedDataPath resolves it there). */
async function marshmallow(): Promise<Trajectory> {
  const folder = sharedDataPath('swe-agent');
  for (const name of (await readdir(folder, { recursive: true })).toSorted()) {
    if (!name.endsWith('.traj') || !name.includes('marshmallow-code__marshmallow-1867')) continue;
    const file = `${folder}/${name}`;
    for await (const event of readTrajectories(createReadStream(file), { fileName: file }))
      if (event.type === 'trajectory') return event.trajectory;
  }
  throw new Error('the marshmallow trajectory ships in demo/data');
}

const Added = z.object({
  report: z.object({
    accepted: z.boolean(),
    gates: z.array(z.object({ gate: z.string(), ok: z.boolean() })),
    reasons: z.array(z.string()),
  }),
});

function answerTask(id: string, command: string, expected: string) {
  return {
    id,
    goal: 'Print what the command prints.',
    world: { id: WORLD },
    verifier: { checks: [{ check: { kind: 'answer-equals', expected, normalize: 'lines' } }] },
    oracle: [command, 'submit'],
    provenance: { source: 'user', trajectory: null, steps: [] },
  };
}

/**
 * A task someone posts on a reconstructed world is held to the same gates as one generated from a
 * trajectory, the `world-needed` gate included: an answer the commands print over nothing passes
 * in a world with nothing in it, so the task would reward printing a constant.
 */
describe('POST /v1/tasks on a world rebuilt from a shipped SWE-agent trajectory', () => {
  let server: TestServer;

  beforeAll(async () => {
    const env = createEnvService({
      now: Date.now,
      newId: () => crypto.randomUUID(),
      worlds: [trajectoryWorldEntry(await marshmallow(), WORLD)],
    });
    server = await startTestServer({ env });
  }, 120_000);
  afterAll(async () => {
    await server.close();
  });

  async function post(
    task: unknown,
  ): Promise<{ status: number; report: z.infer<typeof Added>['report'] }> {
    const response = await fetch(`${server.url}/v1/tasks`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify(task),
    });
    return { status: response.status, report: Added.parse(await response.json()).report };
  }

  it('refuses a task whose answer is the digest of no input, which an empty world gives too', async () => {
    const { status, report } = await post(
      answerTask('digest-of-nothing', 'cat NOTES.missing 2>/dev/null | md5sum', MD5_OF_NOTHING),
    );
    expect(status).toBe(422);
    expect(report.gates.map((gate) => [gate.gate, gate.ok])).toEqual([
      ['oracle-passes', true],
      ['empty-fails', true],
      ['noop-fails', true],
      ['initial-fails', true],
      ['world-needed', false],
    ]);
    expect(report.reasons).toEqual([
      `the oracle gives the expected answer (${JSON.stringify(MD5_OF_NOTHING)}) in an empty world too, a value computed over nothing: the rebuilt world lacks what the task is about`,
    ]);
  });

  it('accepts one whose answer needs the repository: a count of its files, which is 0 in an empty world', async () => {
    const { status, report } = await post(answerTask('rst-count', 'ls *.rst | wc -l', '7'));
    expect(report.reasons).toEqual([]);
    expect(status).toBe(201);
    expect(report.gates.find((gate) => gate.gate === 'world-needed')).toMatchObject({ ok: true });
  });
});
