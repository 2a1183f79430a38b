/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { type Action, JsonValue, type ToolSchema, type Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readTrajectoryFile } from '../testing/read-files';
import { domainOptions, tauAirlineDomain, type ToolDomain } from './domains/tool-domains';
import { learnReadMappings, type ReadMapping, type ToolDatabase } from './learn-reads';
import { measureToolReads } from './tool-sufficiency';
import { buildToolWorld, createToolWorld, recordedToolCalls } from './tool-world';

const Table = z.record(z.string(), z.record(z.string(), JsonValue));

function airlineFile(name: string): string {
  return readFileSync(sharedDataPath(`tau-bench-v1/envs/airline/data/${name}.json`), 'utf8');
}

function table(name: string): ToolDatabase[string] {
  return Table.parse(JSON.parse(airlineFile(name)));
}

describe('tool world on tau-bench v1 airline (GPT-4o, 200 trajectories)', () => {
  let trajectories: Trajectory[] = [];
  let database: ToolDatabase = {};
  let mappings: ReadMapping[] = [];

  beforeAll(async () => {
    trajectories = await readTrajectoryFile(
      sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
    );
    // No read-only tool selects a flight record by one argument: flights are for the searches.
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

    // A call without the argument that selects the record is refused in the benchmark's words,
    // as its write tools refuse one (walk 43 got "missing-argument: no recorded response…").
    const missing = await world.step({
      type: 'tool_call',
      name: 'get_user_details',
      arguments: {},
      callId: 'c1',
    });
    expect(missing).toEqual({
      observation: { kind: 'text', content: 'Error: missing argument user_id', callId: 'c1' },
      exitCode: null,
      provenance: 'executed',
      detail: { table: 'users', missingArgument: 'user_id' },
    });
    // One that is there but no key is looked up and found nowhere, as an unknown key is.
    const numeric = await world.step({
      type: 'tool_call',
      name: 'get_user_details',
      arguments: { user_id: 123 },
      callId: null,
    });
    expect([numeric.provenance, numeric.detail]).toEqual([
      'world-model',
      { reason: 'key-not-in-state' },
    ]);
  });

  it('marks records an unmodelled write names as stale; snapshot and fork keep that state', async () => {
    // No implemented tools here: cancel_reservation is a write the world cannot apply.
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
    // The reason code stays in `detail`; a policy reads plain words (walk 52 saw
    // `no-read-mapping: no recorded response and no world model configured`).
    expect(cancel).toEqual({
      observation: {
        kind: 'error',
        content:
          'the world cannot answer this: it does not implement cancel_reservation, and no recording or simulator answers it',
        callId: null,
      },
      exitCode: null,
      provenance: 'world-model',
      detail: { reason: 'no-read-mapping' },
    });
    expect(world.staleRecords()).toEqual(['reservations/NM1VX1']);
    const fork = world.fork();
    const after = await world.step(read);
    expect([after.provenance, after.detail]).toEqual([
      'world-model',
      { reason: 'changed-by-unmodelled-write' },
    ]);
    expect(after.observation.content).toBe(
      'the world cannot answer this: it cannot tell how an earlier call changed the record this call reads, and no recording or simulator answers it',
    );
    expect(await fork.step(read)).toEqual(after);
    expect([world.steps, fork.steps]).toEqual([3, 3]);
    world.restore(before);
    expect(world.staleRecords()).toEqual([]);
    expect(fork.staleRecords()).toEqual(['reservations/NM1VX1']);
    expect((await world.step(read)).provenance).toBe('executed');
  });
});

describe('tool world given the tools it offers (tau-bench v1 airline tables)', () => {
  it('refuses a tool outside them as the benchmark would, changing nothing and asking no simulator', async () => {
    const database = { users: table('users'), reservations: table('reservations') };
    const tools: ToolSchema[] = ['get_reservation_details', 'cancel_reservation'].map((name) => ({
      type: 'function',
      function: { name },
    }));
    const world = createToolWorld('airline', database, { tools });
    const unknown = await world.step({
      type: 'tool_call',
      name: 'fly_me',
      arguments: { reservation_id: 'NM1VX1' },
      callId: 'c7',
    });
    expect(unknown).toEqual({
      observation: { kind: 'text', content: 'Error: unknown tool fly_me', callId: 'c7' },
      exitCode: null,
      provenance: 'executed',
      detail: { unknownTool: 'fly_me' },
    });
    // An unmodelled write would have marked the reservation it names stale; a refusal does not.
    expect(world.staleRecords()).toEqual([]);
    // An offered tool it does not model still goes to the fallback, said in plain words.
    const offered = await world.step({
      type: 'tool_call',
      name: 'cancel_reservation',
      arguments: { reservation_id: 'NM1VX1' },
      callId: null,
    });
    expect([offered.provenance, offered.observation.content, world.staleRecords()]).toEqual([
      'world-model',
      'the world cannot answer this: it does not implement cancel_reservation, and no recording or simulator answers it',
      ['reservations/NM1VX1'],
    ]);
    // A shell command is no tool call.
    const command = await world.step({ type: 'command', command: 'ls', interpreter: 'bash' });
    expect([command.observation.content, command.detail]).toEqual([
      'the world cannot answer this: it takes tool calls only, and no recording or simulator answers it',
      { reason: 'not-a-tool-call' },
    ]);
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

describe('tau-bench v1 airline with flight searches and applied writes (bookings, cancellations, updates)', () => {
  let trajectories: Trajectory[] = [];
  let domain: ToolDomain;

  beforeAll(async () => {
    trajectories = await readTrajectoryFile(
      sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
    );
    domain = tauAirlineDomain(
      {
        users: airlineFile('users'),
        reservations: airlineFile('reservations'),
        flights: airlineFile('flights'),
      },
      trajectories.flatMap(recordedToolCalls),
    );
  });

  it('reproduces every recorded read, searches included, and every write answer, replaying writes in order', async () => {
    const report = await measureToolReads(
      trajectories,
      domain.database,
      domain.mappings,
      domainOptions(domain),
    );
    expect(report).toEqual({
      ...reads(912),
      byTool: {
        get_user_details: reads(120),
        search_direct_flight: reads(141),
        search_onestop_flight: reads(38),
        calculate: reads(96),
        think: reads(92),
        get_reservation_details: reads(377),
        transfer_to_human_agents: reads(48),
      },
      applied: {
        ...writes(250),
        byTool: {
          book_reservation: writes(53),
          update_reservation_flights: writes(104),
          update_reservation_baggages: writes(14),
          cancel_reservation: writes(69),
          send_certificate: writes(8),
          update_reservation_passengers: writes(2),
        },
      },
    });
  });

  it('a booking and a cancellation change what later reads return; a fork keeps its own state', async () => {
    const world = createToolWorld('airline', domain.database, domainOptions(domain));
    const Flight = z.object({
      flight_number: z.string(),
      prices: z.record(z.string(), z.number()),
    });
    const found = z.array(Flight).parse(
      JSON.parse(
        (
          await world.step(
            toolCall('search_direct_flight', {
              origin: 'JFK',
              destination: 'SEA',
              date: '2024-05-20',
            }),
          )
        ).observation.content,
      ),
    );
    expect(found.map((flight) => flight.flight_number)).toEqual(['HAT069', 'HAT083']);
    const price = found[0]?.prices['economy'] ?? 0;
    const before = await world.step(toolCall('get_user_details', { user_id: 'mia_li_3668' }));
    const fork = world.fork();
    const booked = await world.step(
      toolCall('book_reservation', {
        user_id: 'mia_li_3668',
        origin: 'JFK',
        destination: 'SEA',
        flight_type: 'one_way',
        cabin: 'economy',
        flights: [{ flight_number: 'HAT069', date: '2024-05-20' }],
        passengers: [{ first_name: 'Mia', last_name: 'Li', dob: '1990-04-05' }],
        payment_methods: [{ payment_id: 'credit_card_4421486', amount: price }],
        total_baggages: 0,
        nonfree_baggages: 0,
        insurance: 'no',
      }),
    );
    expect([booked.provenance, booked.detail]).toEqual([
      'executed',
      { tool: 'book_reservation', effect: 'write' },
    ]);
    const Reservation = z.object({ reservation_id: z.string(), status: z.string().optional() });
    expect(Reservation.parse(JSON.parse(booked.observation.content)).reservation_id).toBe('HATHAT');
    const read = await world.step(
      toolCall('get_reservation_details', { reservation_id: 'HATHAT' }),
    );
    expect([read.provenance, read.observation.content]).toEqual([
      'executed',
      booked.observation.content,
    ]);
    const User = z.object({ reservations: z.array(z.string()) });
    const after = User.parse(
      JSON.parse(
        (await world.step(toolCall('get_user_details', { user_id: 'mia_li_3668' }))).observation
          .content,
      ),
    );
    expect(after.reservations).toEqual([
      ...User.parse(JSON.parse(before.observation.content)).reservations,
      'HATHAT',
    ]);
    const cancelled = await world.step(
      toolCall('cancel_reservation', { reservation_id: 'HATHAT' }),
    );
    expect(Reservation.parse(JSON.parse(cancelled.observation.content)).status).toBe('cancelled');
    expect(
      (await world.step(toolCall('get_reservation_details', { reservation_id: 'HATHAT' })))
        .observation.content,
    ).toBe(cancelled.observation.content);
    expect(world.state()['written']).toEqual({ reservations: ['HATHAT'], users: ['mia_li_3668'] });
    // The fork was taken before the booking: it never saw it, and says so in tau-bench's words.
    const elsewhere = await fork.step(
      toolCall('get_reservation_details', { reservation_id: 'HATHAT' }),
    );
    expect([elsewhere.provenance, elsewhere.observation.content, elsewhere.detail]).toEqual([
      'executed',
      'Error: reservation not found',
      { table: 'reservations', key: 'HATHAT', missing: true },
    ]);
    const nobody = await fork.step(toolCall('get_user_details', { user_id: 'nobody' }));
    expect([nobody.provenance, nobody.observation.content]).toEqual([
      'executed',
      'Error: user not found',
    ]);
    expect(fork.state()['written']).toEqual({});
    // A refused booking (payment does not add up) changes nothing.
    const refused = await fork.step(
      toolCall('book_reservation', {
        user_id: 'mia_li_3668',
        origin: 'JFK',
        destination: 'SEA',
        flight_type: 'one_way',
        cabin: 'economy',
        flights: [{ flight_number: 'HAT069', date: '2024-05-20' }],
        passengers: [{ first_name: 'Mia', last_name: 'Li', dob: '1990-04-05' }],
        payment_methods: [{ payment_id: 'credit_card_4421486', amount: 1 }],
        total_baggages: 0,
        nonfree_baggages: 0,
        insurance: 'no',
      }),
    );
    expect(refused.observation.content).toBe(
      `Error: payment amount does not add up, total price is ${price}, but paid 1`,
    );
    expect(fork.state()['written']).toEqual({});
  });
});

const reads = (n: number) => ({ reads: n, exact: n, mismatch: 0, fallback: 0 });
const writes = (n: number) => ({ writes: n, exact: n, mismatch: 0 });

function toolCall(name: string, args: JsonValue): Action {
  return { type: 'tool_call', name, arguments: args, callId: null };
}
