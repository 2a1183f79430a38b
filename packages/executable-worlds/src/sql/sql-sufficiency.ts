import type { Trajectory } from '@terrarium/schema';
import type { SqlJsStatic } from 'sql.js';
import type { SqlWorld } from '../world';
import type { Counts, SufficiencyReport, TrajectorySufficiency } from '../sufficiency';
import type { DumpDatabase } from './mysql-dump';
import { createSqlWorld } from './sql-world';

export interface SqlSufficiencyOptions {
  dataset: string;
  sql: SqlJsStatic;
  databases: readonly DumpDatabase[];
  /** The database a trajectory ran on (InterCode: the `db` of its Spider task), or null. */
  databaseOf: (trajectory: Trajectory) => string | null;
}

function zero(): Counts {
  return { transitions: 0, exact: 0, fallback: 0, mismatch: 0 };
}

/** The statement kind (`SELECT`, `SHOW`, `DESCRIBE`…): the command family of a SQL action. */
export function sqlFamily(command: string): string {
  return (/^\s*(\w+)/.exec(command)?.[1] ?? '').toUpperCase();
}

/**
 * Steps of the benchmark harness, not of the database: InterCode's `submit` ends the episode, and
 * an action it could not read as SQL (a model writing "Output: …" as its action) is answered with
 * the harness's format reminder and never reaches MySQL. Left out of the counts, as the bash
 * worlds leave out theirs (walk 43 saw them as 22 OUTPUT and 2 SUBMIT mismatches).
 */
export function isSqlHarnessStep(command: string, observation: string): boolean {
  return (
    /^\s*submit\s*;?\s*$/i.test(command) ||
    observation.startsWith('Format your SQL command as follows:')
  );
}

/**
 * Replays InterCode SQL episodes on their Spider database and counts recorded results reproduced
 * byte for byte. A trajectory whose database is unknown counts its transitions as fallbacks.
 */
export async function measureSqlSufficiency(
  trajectories: readonly Trajectory[],
  options: SqlSufficiencyOptions,
): Promise<SufficiencyReport> {
  const bases = new Map<string, SqlWorld>();
  const report: SufficiencyReport = {
    dataset: options.dataset,
    worlds: 0,
    skipped: 0,
    ...zero(),
    byCommand: {},
    trajectories: [],
  };
  for (const trajectory of trajectories) {
    const name = options.databaseOf(trajectory);
    const database = options.databases.find((candidate) => candidate.name === name);
    let world: SqlWorld | null = null;
    if (name !== null && database !== undefined) {
      let base = bases.get(name);
      if (base === undefined) {
        base = createSqlWorld(name, options.sql, database);
        bases.set(name, base);
      }
      world = base.fork();
      report.worlds++;
    }
    const result: TrajectorySufficiency = {
      id: trajectory.externalId,
      image: name ?? '',
      ...zero(),
      mismatches: [],
    };
    for (const step of trajectory.steps) {
      if (step.action.type !== 'command' || step.observation === null) continue;
      const expected = step.observation.content;
      if (isSqlHarnessStep(step.action.command, expected)) {
        report.skipped++;
        continue;
      }
      const family = sqlFamily(step.action.command);
      const actual = world === null ? '' : (await world.step(step.action)).observation.content;
      const outcome = world === null ? 'fallback' : actual === expected ? 'exact' : 'mismatch';
      for (const counts of [result, report, (report.byCommand[family] ??= zero())]) {
        counts.transitions++;
        counts[outcome]++;
      }
      if (outcome !== 'exact') {
        result.mismatches.push({
          step: step.index,
          command: step.action.command,
          family,
          outcome,
          provenance: world === null ? 'world-model' : 'executed',
          reason: world === null ? 'unknown-database' : null,
          expected,
          actual,
        });
      }
    }
    report.trajectories.push(result);
  }
  return report;
}
