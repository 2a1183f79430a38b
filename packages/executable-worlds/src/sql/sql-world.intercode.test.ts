import { readFileSync } from 'node:fs';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { readTrajectoryFile } from '../testing/read-files';
import { parseMysqlDump } from './mysql-dump';
import { measureSqlSufficiency } from './sql-sufficiency';

describe.skipIf(!sharedDataAvailable('intercode'))(
  `SQL worlds on the Spider dump ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('replays InterCode SQL (GPT-4) on the dump and counts recorded results reproduced exactly', async () => {
      const sql = await initSqlJs();
      const databases = parseMysqlDump(
        readFileSync(sharedDataPath('intercode/data/sql/spider/ic_spider_dbs.sql'), 'utf8'),
      );
      const tasks: unknown = JSON.parse(
        readFileSync(sharedDataPath('intercode/data/sql/spider/ic_spider_dev.json'), 'utf8'),
      );
      const dbByQuestion = new Map<string, string>();
      if (Array.isArray(tasks)) {
        for (const task of tasks) {
          if (
            typeof task === 'object' &&
            task !== null &&
            'query' in task &&
            'db' in task &&
            typeof task.query === 'string' &&
            typeof task.db === 'string'
          ) {
            dbByQuestion.set(task.query, task.db);
          }
        }
      }
      const trajectories = await readTrajectoryFile(
        sharedDataPath('intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json'),
      );
      const report = await measureSqlSufficiency(trajectories, {
        dataset: 'intercode/sql',
        sql,
        databases,
        databaseOf: (trajectory) => dbByQuestion.get(trajectory.task ?? '') ?? null,
      });
      const { trajectories: per, byCommand, ...totals } = report;
      expect(databases).toHaveLength(20);
      expect(per).toHaveLength(1034);
      expect(totals).toEqual({
        dataset: 'intercode/sql',
        worlds: 1034,
        // The harness's own steps: `submit`, and actions it answered with its format reminder
        // without running them (walk 43 saw 22 "Output: …" and 2 `submit` as mismatches).
        skipped: 33,
        transitions: 5834,
        exact: 4960,
        fallback: 0,
        mismatch: 874,
      });
      expect(
        Object.keys(byCommand).filter((family) => ['OUTPUT', 'SUBMIT'].includes(family)),
      ).toEqual([]);
      expect(byCommand['SHOW']).toEqual({
        transitions: 1083,
        exact: 1074,
        fallback: 0,
        mismatch: 9,
      });
      expect(byCommand['DESCRIBE']).toEqual({
        transitions: 845,
        exact: 827,
        fallback: 0,
        mismatch: 18,
      });
    }, 300_000);
  },
);
