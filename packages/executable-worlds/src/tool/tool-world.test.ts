/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { type Action, JsonValue, type Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readTrajectoryFile } from '../testing/read-files';
import { learnReadMappings, type ReadMapping, type ToolDatabase } from './learn-reads';
import { measureToolReads } from './tool-sufficiency';
import { buildToolWorld, recordedToolCalls } from './tool-world';

const Table = z.record(z.string(), z.record(z.string(), JsonValue));

function table(name: string): ToolDatabase[string] {
  const file = sharedDataPath(`tau-bench-v1/envs/airline/data/${name}.json`);
  return Table.parse(JSON.parse(readFileSync(file, 'utf8')));
}

describe('tool world on tau-bench v1 airline (GPT-4o, 200 trajectories)', () => {
  let trajectories: Trajectory[] = [];
  let database: ToolDatabase = {};
  let mappings: ReadMapping[] = [];

  beforeAll(async () => {
    trajectories = await readTrajectoryFile(
      sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
    );
    // flights.json is not shipped: no read-only tool selects a flight record by one argument.
    database = { users: table('users'), reservations: table('reservations') };
    mappings = learnReadMappings(database, trajectories.flatMap(recordedToolCalls));
  });

  it('learns which argument selects which record, and the key renamed since recording', () => {
    expect(mappings).toEqual([
      {
        tool: 'get_reservation_details',
        argument: 'reservation_id',
        table: 'reservations',
        renames: [],
        checked: 377,
        reproduced: 377,
      },
      {
        tool: 'get_user_details',
        argument: 'user_id',
        table: 'users',
        // The upstream users table later renamed `province` to `state`; the recordings keep the old name.
        renames: [{ path: ['address', 'state'], to: 'province' }],
        checked: 120,
        reproduced: 120,
      },
    ]);
  });

  it('reproduces every recorded read-only observation from the state alone (497 of 497)', async () => {
    const report = await measureToolReads(trajectories, database, mappings);
    expect(report).toEqual({
      reads: 497,
      exact: 497,
      mismatch: 0,
      fallback: 0,
      byTool: {
        get_user_details: { reads: 120, exact: 120, mismatch: 0, fallback: 0 },
        get_reservation_details: { reads: 377, exact: 377, mismatch: 0, fallback: 0 },
      },
    });
  });

  it('answers an identical call from the recording and an edited one from the database', async () => {
    const first = firstTrajectory(trajectories);
    const world = buildToolWorld(first, database, { mappings });
    const recorded = recordedToolCalls(first).find((call) => call.name === 'get_user_details');
    expect(recorded?.arguments).toEqual({ user_id: 'mia_li_3668' });
    const same = await world.step(userDetails('mia_li_3668'));
    expect(same.provenance).toBe('recorded');
    expect(same.observation.content).toBe(recorded?.observation);

    const edited = await world.step(userDetails('sophia_silva_7557'));
    expect(edited.provenance).toBe('executed');
    expect(edited.detail).toEqual({ table: 'users', key: 'sophia_silva_7557' });
    const user = z
      .object({
        name: z.object({ first_name: z.string(), last_name: z.string() }),
        address: z.object({ city: z.string(), province: z.string() }),
        reservations: z.array(z.string()),
      })
      .parse(JSON.parse(edited.observation.content));
    expect(user).toEqual({
      name: { first_name: 'Sophia', last_name: 'Silva' },
      address: { city: 'Columbus', province: 'OH' },
      reservations: ['NM1VX1', 'KC18K6', 'S61CZX', 'H8Q05L', 'WUNA5K'],
    });
    expect(edited.observation.content.startsWith('{"name": {"first_name": "Sophia", ')).toBe(true);

    const unknown = await world.step(userDetails('nobody_0000'));
    expect([unknown.provenance, unknown.detail]).toEqual([
      'world-model',
      { reason: 'key-not-in-state' },
    ]);
  });

  it('marks records an unmodelled write names as stale; snapshot and fork keep that state', async () => {
    const world = buildToolWorld(firstTrajectory(trajectories), database, { mappings });
    const before = world.snapshot();
    const read = reservation('NM1VX1');
    expect((await world.step(read)).provenance).toBe('executed');
    const cancel = await world.step({
      type: 'tool_call',
      name: 'cancel_reservation',
      arguments: { reservation_id: 'NM1VX1' },
      callId: null,
    });
    expect([cancel.provenance, cancel.detail]).toEqual([
      'world-model',
      { reason: 'no-read-mapping' },
    ]);
    expect(world.staleRecords()).toEqual(['reservations/NM1VX1']);
    const fork = world.fork();
    const after = await world.step(read);
    expect([after.provenance, after.detail]).toEqual([
      'world-model',
      { reason: 'changed-by-unmodelled-write' },
    ]);
    expect(await fork.step(read)).toEqual(after);
    expect([world.steps, fork.steps]).toEqual([3, 3]);
    world.restore(before);
    expect(world.staleRecords()).toEqual([]);
    expect(fork.staleRecords()).toEqual(['reservations/NM1VX1']);
    expect((await world.step(read)).provenance).toBe('executed');
  });
});

function userDetails(userId: string): Action {
  return {
    type: 'tool_call',
    name: 'get_user_details',
    arguments: { user_id: userId },
    callId: null,
  };
}

function reservation(id: string): Action {
  return {
    type: 'tool_call',
    name: 'get_reservation_details',
    arguments: { reservation_id: id },
    callId: null,
  };
}

function firstTrajectory(trajectories: Trajectory[]): Trajectory {
  const first = trajectories[0];
  if (first === undefined) throw new Error('no trajectories read');
  return first;
}
