import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { moveFromText } from '../tasks/episode';
import { Task } from '../tasks/task';
import { createWorldCatalog, SCRATCH_WORLD } from '../worlds/world-catalog';
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
