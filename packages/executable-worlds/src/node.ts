/// <reference types="node" />
// Node-side entry (reads files, loads sql.js's wasm); the browser imports only the package root.
import { readFile } from 'node:fs/promises';
import type { SufficiencyReport } from './sufficiency';
import type { Trajectory } from '@terrarium/schema';
import initSqlJs from 'sql.js';
import { parseMysqlDump } from './sql/mysql-dump';
import { measureSqlSufficiency } from './sql/sql-sufficiency';

export interface SqlFiles {
  /** The MySQL dump the episodes ran on (InterCode: `data/sql/spider/ic_spider_dbs.sql`). */
  dump: string;
  /**
   * Spider task files (JSON lists of `{query, db}`, e.g. `ic_spider_dev.json`) naming each
   * question's database; without them only trajectories whose metadata names `db` have one.
   */
  tasks?: readonly string[];
}

function databaseByQuestion(lists: unknown[]): Map<string, string> {
  const byQuestion = new Map<string, string>();
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const task of list) {
      if (
        typeof task === 'object' &&
        task !== null &&
        'query' in task &&
        'db' in task &&
        typeof task.query === 'string' &&
        typeof task.db === 'string'
      )
        byQuestion.set(task.query, task.db);
    }
  }
  return byQuestion;
}

/** SQL sufficiency of InterCode SQL trajectories, on the dump and task files they came with. */
export async function measureSqlSufficiencyFromFiles(
  trajectories: readonly Trajectory[],
  dataset: string,
  files: SqlFiles,
): Promise<SufficiencyReport> {
  const [sql, dump, ...taskLists] = await Promise.all([
    initSqlJs(),
    readFile(files.dump, 'utf8'),
    ...(files.tasks ?? []).map(async (path): Promise<unknown> =>
      JSON.parse(await readFile(path, 'utf8')),
    ),
  ]);
  const byQuestion = databaseByQuestion(taskLists);
  return measureSqlSufficiency(trajectories, {
    dataset,
    sql,
    databases: parseMysqlDump(dump),
    databaseOf: (trajectory) => {
      const db = trajectory.metadata['db'];
      if (typeof db === 'string') return db;
      return byQuestion.get(trajectory.task ?? '') ?? null;
    },
  });
}
