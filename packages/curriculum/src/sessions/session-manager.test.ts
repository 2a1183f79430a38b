/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { createToolWorld, domainOptions, tau2RetailDomain } from '@terrarium/executable-worlds';
import type { ToolSchema } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { moveFromText, moveFromToolCall } from '../tasks/episode';
import { Task } from '../tasks/task';
import { createWorldCatalog, SCRATCH_WORLD, type WorldEntry } from '../worlds/world-catalog';
import { moveFromRequest, StepEnvRequest } from './env-protocol';
import {
  SessionManager,
  type SessionLimits,
  type StepOutcome,
  isSessionError,
} from './session-manager';

function manager(limits: Partial<SessionLimits> = {}) {
  let clock = 0;
  let ids = 0;
  const tasks = new Map(BUILTIN_TASKS.map((input) => [input.id, Task.parse(input)]));
  const sessions = new SessionManager({
    worlds: createWorldCatalog([SCRATCH_WORLD]),
    tasks,
    now: () => clock,
    newId: () => `s${(ids += 1)}`,
    limits,
  });
  return { sessions, advance: (ms: number) => (clock += ms) };
}

async function step(sessions: SessionManager, id: string, text: string): Promise<StepOutcome> {
  const world = sessions.worldOf(id);
  if (isSessionError(world)) throw new Error(world.message);
  const outcome = await sessions.step(id, moveFromText(world, text));
  if (isSessionError(outcome)) throw new Error(outcome.message);
  return outcome;
}

describe('SessionManager', () => {
  it('runs an episode to the verifier reward', async () => {
    const { sessions } = manager();
    const opened = await sessions.create({ task: 'scratch-last-line' });
    if (isSessionError(opened)) throw new Error(opened.message);
    expect(opened.tools.map((tool) => tool.function.name)).toEqual(['bash', 'submit']);
    expect((await step(sessions, opened.id, 'cat /data/notes.txt')).observation).toBe(
      'alpha\nbravo\ncharlie\n',
    );
    await step(sessions, opened.id, 'echo charlie > /data/last.txt');
    const done = await step(sessions, opened.id, 'submit');
    expect([done.reward, done.terminated, done.truncated]).toEqual([1, true, false]);
    expect(await sessions.step(opened.id, { kind: 'submit', answer: null })).toMatchObject({
      error: 'conflict',
    });
  });

  it('forks: both sessions continue identically, and apart from the parent', async () => {
    const { sessions } = manager();
    const parent = await sessions.create({ world: 'scratch', params: { files: 5 }, seed: 7 });
    if (isSessionError(parent)) throw new Error(parent.message);
    await step(sessions, parent.id, 'echo one > /a.txt');
    const left = await sessions.fork(parent.id);
    const right = await sessions.fork(parent.id);
    if (isSessionError(left) || isSessionError(right)) throw new Error('fork refused');
    const script = [
      'echo two >> /a.txt',
      'cat /a.txt /data/file-3.txt',
      'rm /data/file-0.txt',
      'ls /data',
    ];
    const outputs = async (id: string) => {
      const seen: string[] = [];
      for (const line of script) seen.push((await step(sessions, id, line)).observation);
      return seen;
    };
    const leftSeen = await outputs(left.id);
    expect(await outputs(right.id)).toEqual(leftSeen);
    expect(leftSeen[1]?.startsWith('one\ntwo\n')).toBe(true);
    expect(leftSeen[3]).toBe('file-1.txt\nfile-2.txt\nfile-3.txt\nfile-4.txt\n');
    expect((await step(sessions, parent.id, 'cat /a.txt')).observation).toBe('one\n');
  });

  it('is deterministic for a seed and differs across seeds', async () => {
    const { sessions } = manager();
    const read = async (seed: number) => {
      const opened = await sessions.create({ world: 'scratch', params: { files: 4 }, seed });
      if (isSessionError(opened)) throw new Error(opened.message);
      return (
        await step(sessions, opened.id, 'cat /data/file-0.txt /data/file-1.txt /data/file-2.txt')
      ).observation;
    };
    expect(await read(3)).toBe(await read(3));
    expect(await read(3)).not.toBe(await read(4));
  });

  it('answers full with a retry hint at the cap, keeps admitted sessions working, and expires idle ones', async () => {
    const { sessions, advance } = manager({
      maxSessions: 2,
      idleTimeoutMs: 10_000,
      retryAfterSeconds: 3,
    });
    const a = await sessions.create({ world: 'scratch' });
    const b = await sessions.create({ world: 'scratch' });
    if (isSessionError(a) || isSessionError(b)) throw new Error('refused');
    advance(4000);
    expect(await sessions.create({ world: 'scratch' })).toEqual({
      error: 'full',
      message:
        'the server holds 2 sessions, its limit: one frees when a client deletes its session, or in 6 s when the idlest expires (sessions expire after 10 s idle)',
      retryAfterSeconds: 3,
    });
    expect(await sessions.fork(a.id)).toMatchObject({ error: 'full' });
    expect((await step(sessions, b.id, 'echo still here')).observation).toBe('still here\n');
    advance(3000);
    await step(sessions, b.id, 'true');
    advance(8000);
    const c = await sessions.create({ world: 'scratch' });
    expect(isSessionError(c)).toBe(false);
    expect(sessions.worldOf(a.id)).toMatchObject({ error: 'not-found' });
    expect(sessions.size).toBe(2);
  });

  it('bounds session memory: the step that would exceed it is undone and truncates', async () => {
    const { sessions } = manager({ maxSessionBytes: 100 });
    const opened = await sessions.create({ world: 'scratch', params: { files: 0 } });
    if (isSessionError(opened)) throw new Error(opened.message);
    await step(sessions, opened.id, `echo ${'x'.repeat(60)} > /a.txt`);
    const over = await step(sessions, opened.id, `echo ${'y'.repeat(60)} > /b.txt`);
    expect(over.truncated).toBe(true);
    expect(over.info['error']).toBe("the step would exceed the session's 100 bytes; it was undone");
    expect(await sessions.state(opened.id)).toMatchObject({ worldState: { files: 1, bytes: 61 } });
  });
});

/** The tools offered: one read the world was taught nothing about, and three it implements. */
const RETAIL_TOOLS: ToolSchema[] = [
  'get_order_details',
  'calculate',
  'cancel_pending_order',
  'find_user_id_by_email',
].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));

/**
 * A tau2-bench retail world on its real db.json, as the environment server serves it, though
 * taught no read from recordings (so `get_order_details` is a tool it offers and cannot answer).
 */
function retailWorld(): WorldEntry {
  const domain = tau2RetailDomain(
    readFileSync(sharedDataPath('tau2-bench/domains/retail/db.json'), 'utf8'),
    [],
  );
  return {
    id: 'tau2-retail',
    description: 'tau2-bench retail',
    create: () =>
      createToolWorld('tau2-retail', domain.database, {
        ...domainOptions(domain),
        tools: RETAIL_TOOLS,
      }),
  };
}

/** A session on the retail world, and a step as a client posts it to the server. */
async function openRetail(maxSteps: number) {
  let ids = 0;
  const sessions = new SessionManager({
    worlds: createWorldCatalog([SCRATCH_WORLD, retailWorld()]),
    tasks: new Map(),
    now: () => 0,
    newId: () => `t${(ids += 1)}`,
  });
  const session = await sessions.create({ world: 'tau2-retail', maxSteps });
  if (isSessionError(session)) throw new Error(session.message);
  const world = sessions.worldOf(session.id);
  if (isSessionError(world)) throw new Error(world.message);
  /** A step body as a client posts it to `POST /v1/envs/{id}/step`. */
  const post = async (body: unknown) => {
    const outcome = await sessions.step(
      session.id,
      moveFromRequest(world, StepEnvRequest.parse(body)),
    );
    if (isSessionError(outcome)) throw new Error(outcome.message);
    return outcome;
  };
  return { sessions, session, post };
}

const CHOICE =
  'use get_order_details, calculate, cancel_pending_order, find_user_id_by_email or submit';

describe('SessionManager on a tool world (tau2-bench retail db.json)', () => {
  it('answers an unknown tool and plain text as invalid moves naming the tools, as the scratch world does', async () => {
    const { sessions, session, post } = await openRetail(30);
    expect(session.tools.map((tool) => tool.function.name)).toEqual([
      'get_order_details',
      'calculate',
      'cancel_pending_order',
      'find_user_id_by_email',
      'submit',
    ]);
    // The two bodies of walk 52, both stepped in the world then and answered `no-read-mapping: …`.
    expect(
      await post({ action: { type: 'function', function: { name: 'fly_me', arguments: '{}' } } }),
    ).toEqual({
      observation: `invalid move: unknown tool fly_me; ${CHOICE}`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { steps: 1, invalid: `unknown tool fly_me; ${CHOICE}` },
    });
    expect(await post({ action: 'ls' })).toEqual({
      observation: `invalid move: a tool world takes tool calls, not text like "ls"; ${CHOICE}`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { steps: 2, invalid: `a tool world takes tool calls, not text like "ls"; ${CHOICE}` },
    });
    // Text naming an unknown tool with JSON arguments is a call, of a tool there is not.
    expect((await post({ action: 'fly_me {"to": "SFO"}' })).info).toEqual({
      steps: 3,
      invalid: `unknown tool fly_me; ${CHOICE}`,
    });
    // A tool the benchmark has but this world does not offer is no move either.
    expect(
      (await post({ tool_call: { function: { name: 'list_all_product_types', arguments: {} } } }))
        .info,
    ).toEqual({
      steps: 4,
      invalid: `unknown tool list_all_product_types; ${CHOICE}`,
    });
    // Offered tools still act, as a tool call or as text in transcript form.
    expect(await post({ action: 'calculate {"expression": "2 + 3"}' })).toEqual({
      observation: '5.0',
      reward: 0,
      terminated: false,
      truncated: false,
      info: { steps: 5, exitCode: null, provenance: 'executed' },
    });
    // Invalid moves count toward maxSteps, never toward the steps the world ran.
    expect(await sessions.state(session.id)).toMatchObject({
      steps: 5,
      worldState: { steps: 1 },
    });
  });

  it('says in plain words what the world cannot answer, its reason code in info only', async () => {
    const { post } = await openRetail(30);
    expect(
      await post({
        action: {
          type: 'function',
          function: { name: 'get_order_details', arguments: '{"order_id": "#W4836353"}' },
        },
      }),
    ).toEqual({
      observation:
        'the world cannot answer this: it does not implement get_order_details, and no recording or simulator answers it',
      reward: 0,
      terminated: false,
      truncated: false,
      info: { steps: 1, exitCode: null, provenance: 'world-model', fallback: 'no-read-mapping' },
    });
  });

  it('truncates at maxSteps on an invalid move as on any other, and takes no step after', async () => {
    const { sessions, session, post } = await openRetail(2);
    expect((await post({ action: 'calculate {"expression": "1"}' })).truncated).toBe(false);
    expect(await post({ action: 'ls' })).toMatchObject({ truncated: true, terminated: false });
    expect(await sessions.step(session.id, { kind: 'submit', answer: null })).toMatchObject({
      error: 'conflict',
    });
  });

  it('tries any name in a tool world given no list of tools, never an `init:` setup action', () => {
    const domain = tau2RetailDomain(
      readFileSync(sharedDataPath('tau2-bench/domains/retail/db.json'), 'utf8'),
      [],
    );
    const unlisted = createToolWorld('replay', domain.database, domainOptions(domain));
    expect(moveFromToolCall(unlisted, 'fly_me', {})).toEqual({
      kind: 'act',
      action: { type: 'tool_call', name: 'fly_me', arguments: {}, callId: null },
    });
    expect(moveFromToolCall(unlisted, 'init:set_data', {})).toEqual({
      kind: 'invalid',
      reason: 'unknown tool init:set_data',
    });
    expect(moveFromText(unlisted, 'Let me check the order first.')).toEqual({
      kind: 'invalid',
      reason:
        'a tool world takes tool calls, not text like "Let me check the order first."; write one as tool_name {"arg": …}',
    });
  });
});
