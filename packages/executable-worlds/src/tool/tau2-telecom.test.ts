/// <reference types="node" />
import { readFileSync } from 'node:fs';
import type { Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTrajectoryFile } from '../testing/read-files';
import {
  domainOptions,
  tau2Initialization,
  tau2TelecomDomain,
  type ToolDomain,
} from './domains/tool-domains';
import { TomlSubsetError, parseTomlSubset } from './toml-subset';
import { measureToolReads } from './tool-sufficiency';
import { recordedToolCalls } from './tool-world';

const RESULTS = 'tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json';
const reads = (n: number) => ({ reads: n, exact: n, mismatch: 0, fallback: 0 });
const writes = (n: number) => ({ writes: n, exact: n, mismatch: 0 });

describe('tool world on tau2-bench telecom, agent side (GPT-4.1, 40 simulations, db.toml)', () => {
  let trajectories: Trajectory[] = [];
  let domain: ToolDomain;
  let initialization: ReturnType<typeof tau2Initialization>;

  beforeAll(async () => {
    trajectories = await readTrajectoryFile(sharedDataPath(RESULTS));
    domain = tau2TelecomDomain(
      readFileSync(sharedDataPath('tau2-bench/domains/telecom/db.toml'), 'utf8'),
      trajectories.flatMap(recordedToolCalls),
    );
    initialization = tau2Initialization(JSON.parse(readFileSync(sharedDataPath(RESULTS), 'utf8')));
  });

  it('reads the TOML tables and learns how each table prints (pydantic field order, nulls)', () => {
    expect(
      Object.fromEntries(
        Object.entries(domain.database).map(([t, rows]) => [t, Object.keys(rows).length]),
      ),
    ).toEqual({
      plans: 5,
      devices: 9,
      lines: 9,
      customers: 4,
      bills: 6,
    });
    expect([...(domain.shapes?.keys() ?? [])].toSorted()).toEqual([
      'bills',
      'customers',
      'devices',
      'lines',
      'plans',
    ]);
    expect(domain.shapes?.get('customers')?.[0]).toEqual({
      path: [],
      order: [
        'customer_id',
        'full_name',
        'date_of_birth',
        'email',
        'phone_number',
        'address',
        'account_status',
        'payment_methods',
        'line_ids',
        'bill_ids',
        'created_at',
        'last_extension_date',
        'goodwill_credit_used_this_year',
      ],
    });
    expect(() => parseTomlSubset('a = {x = 1}')).toThrow(TomlSubsetError);
  });

  it('from each task start (its initialization actions), reproduces every agent-side read and write', async () => {
    expect(
      [...initialization.values()]
        .flat()
        .map((a) => (a.type === 'tool_call' ? a.name : ''))
        .toSorted()
        .at(0),
    ).toBe('init:disable_roaming');
    const report = await measureToolReads(trajectories, domain.database, domain.mappings, {
      ...domainOptions(domain),
      prepare: (trajectory) => initialization.get(String(trajectory.metadata['taskId'])) ?? [],
    });
    expect(report).toEqual({
      ...reads(185),
      byTool: {
        get_customer_by_phone: reads(40),
        get_details_by_id: reads(94),
        get_data_usage: reads(7),
        transfer_to_human_agents: reads(25),
        get_bills_for_customer: reads(10),
        check_payment_request: reads(9),
      },
      applied: {
        ...writes(31),
        byTool: {
          enable_roaming: writes(5),
          refuel_data: writes(6),
          send_payment_request: writes(10),
          make_payment: writes(10),
        },
      },
    });
  });

  it('without the task starts, the reads after the hidden initialization differ (what they change)', async () => {
    const report = await measureToolReads(
      trajectories,
      domain.database,
      domain.mappings,
      domainOptions(domain),
    );
    expect([report.reads, report.exact, report.mismatch]).toEqual([185, 121, 64]);
  });
});
