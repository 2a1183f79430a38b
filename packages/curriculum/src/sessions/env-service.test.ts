import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { createScratchWorld } from '../worlds/scratch-world';
import type { WorldEntry } from '../worlds/world-catalog';
import { createEnvService } from './env-service';

/** A world that takes no parameters, as the tool worlds and reconstructed ones are. */
const PLAIN: WorldEntry = {
  id: 'plain',
  description: 'a scratch shell that takes no parameters',
  create: () => createScratchWorld('plain', { files: 0 }),
};

describe('createEnvService restore', () => {
  it('skips a saved task whose world would ignore its params, naming the param', async () => {
    const builtin = BUILTIN_TASKS[0];
    if (builtin === undefined) throw new Error('no builtin task');
    const saved = (id: string, params: Record<string, number>) => ({
      id,
      task: { ...builtin, id, world: { id: 'plain', params } },
    });
    const env = createEnvService({
      now: () => 0,
      newId: () => 'session-1',
      persistence: {
        saveTask: async () => undefined,
        deleteTask: async () => undefined,
        saveWorld: async () => undefined,
        load: async () => ({
          worlds: [PLAIN],
          tasks: [saved('kept', {}), saved('noisy', { noise: 0.2 })],
          skipped: [],
        }),
      },
    });
    await env.ready;
    // Listed, it could never be opened: every session on it would be refused for its params.
    expect(env.restored.skipped).toEqual([
      { id: 'noisy', reason: 'world.params.noise: the world plain takes no parameters' },
    ]);
    expect(env.tasks.get('kept')?.world.id).toBe('plain');
    expect(env.tasks.get('noisy')).toBeUndefined();
  });
});
