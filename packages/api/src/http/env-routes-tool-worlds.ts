import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorldEntry } from '@terrarium/curriculum';
import {
  createToolWorld,
  domainOptions,
  inferToolSchemas,
  recordedToolCalls,
  tau2RetailDomain,
  tau2TelecomDomain,
  tauAirlineDomain,
  type ToolDomain,
} from '@terrarium/executable-worlds';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';

/** Benchmark files the tool worlds are built from (each domain optional). */
export interface ToolWorldFiles {
  /** tau-bench v1 airline tables, and recorded runs to learn the read tools from. */
  airline?: { users: string; reservations: string; flights: string; trajectories: string[] };
  /** tau2-bench retail `db.json` and results files. */
  retail?: { db: string; trajectories: string[] };
  /** tau2-bench telecom `db.toml` and results files. */
  telecom?: { db: string; trajectories: string[] };
}

function present(...files: string[]): boolean {
  return files.every((file) => existsSync(file));
}

/** The files under a folder laid out like the upstream repositories (`../shared/data`). */
export function toolWorldFilesIn(root: string): ToolWorldFiles {
  const at = (...parts: string[]) => path.join(root, ...parts);
  const files: ToolWorldFiles = {};
  const airline = at('tau-bench-v1', 'envs', 'airline', 'data');
  const airlineRuns = at('tau-bench-v1', 'historical_trajectories', 'gpt-4o-airline.json');
  if (present(path.join(airline, 'flights.json'), airlineRuns)) {
    files.airline = {
      users: path.join(airline, 'users.json'),
      reservations: path.join(airline, 'reservations.json'),
      flights: path.join(airline, 'flights.json'),
      trajectories: [airlineRuns],
    };
  }
  const retail = at('tau2-bench', 'domains', 'retail', 'db.json');
  const retailRuns = at('tau2-bench', 'results', 'gpt-4.1_retail_defautl_gpt-4.1_1trials.json');
  if (present(retail, retailRuns)) files.retail = { db: retail, trajectories: [retailRuns] };
  const telecom = at('tau2-bench', 'domains', 'telecom', 'db.toml');
  const telecomRuns = at('tau2-bench', 'results', 'gpt-4.1_telecom_default_gpt-4.1_1trials.json');
  if (present(telecom, telecomRuns)) files.telecom = { db: telecom, trajectories: [telecomRuns] };
  return files;
}

async function trajectoriesOf(files: readonly string[]): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for (const file of files) {
    for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
      if (event.type === 'trajectory') out.push(event.trajectory);
    }
  }
  return out;
}

function entry(
  id: string,
  description: string,
  domain: ToolDomain,
  recorded: Trajectory[],
): WorldEntry {
  const calls = recorded.flatMap(recordedToolCalls);
  const tools = inferToolSchemas(calls);
  const options = { ...domainOptions(domain), tools };
  return {
    id,
    description,
    // The database is shared and never written: each world writes to its own overlay.
    create: () => createToolWorld(id, domain.database, options),
  };
}

/**
 * Tool worlds of the environment server: tau-bench airline, tau2 retail and telecom (agent
 * side), each on its benchmark database with the benchmark's tools implemented over the state
 * and the tool schemas inferred from the recorded runs. Reads the files once, at start.
 */
export async function loadToolWorlds(files: ToolWorldFiles): Promise<WorldEntry[]> {
  const entries: WorldEntry[] = [];
  if (files.airline !== undefined) {
    const { users, reservations, flights, trajectories } = files.airline;
    const runs = await trajectoriesOf(trajectories);
    const [u, r, f] = await Promise.all(
      [users, reservations, flights].map((file) => readFile(file, 'utf8')),
    );
    const domain = tauAirlineDomain(
      { users: u ?? '', reservations: r ?? '', flights: f ?? '' },
      runs.flatMap(recordedToolCalls),
    );
    entries.push(
      entry(
        'tau-bench-airline',
        'tau-bench airline: users, reservations, flights; searches, bookings, cancellations, updates',
        domain,
        runs,
      ),
    );
  }
  if (files.retail !== undefined) {
    const runs = await trajectoriesOf(files.retail.trajectories);
    const domain = tau2RetailDomain(
      await readFile(files.retail.db, 'utf8'),
      runs.flatMap(recordedToolCalls),
    );
    entries.push(
      entry(
        'tau2-retail',
        'tau2-bench retail: users, orders, products; order changes, returns, exchanges',
        domain,
        runs,
      ),
    );
  }
  if (files.telecom !== undefined) {
    const runs = await trajectoriesOf(files.telecom.trajectories);
    const domain = tau2TelecomDomain(
      await readFile(files.telecom.db, 'utf8'),
      runs.flatMap(recordedToolCalls),
    );
    // The user's phone tools are not modelled: only the agent's (and payment) tools are offered.
    const agentRuns = runs.map((run) => ({
      ...run,
      steps: run.steps.filter(
        (step) =>
          step.actor !== 'user' ||
          ['check_payment_request', 'make_payment'].includes(
            step.action.type === 'tool_call' ? step.action.name : '',
          ),
      ),
    }));
    entries.push(
      entry(
        'tau2-telecom',
        'tau2-bench telecom, agent side: customers, lines, plans, bills; roaming, refuels, payments',
        domain,
        agentRuns,
      ),
    );
  }
  return entries;
}
