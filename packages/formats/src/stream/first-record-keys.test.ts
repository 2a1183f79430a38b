import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import { readTrajectories } from '../read-trajectories';
import { HEAD_BYTES } from './read-head';
import { collect, chunked } from './testing/probe-adapter';
import { firstRecordHint, firstRecordKeys } from './first-record-keys';

/** The reason of the one fatal event reading the real file gives (every known format tried). */
async function fatalReason(relative: string): Promise<string | undefined> {
  const bytes = readFileSync(sharedDataPath(relative));
  const events = await collect(
    readTrajectories(chunked(bytes, [65_536]), { fileName: relative.split('/').at(-1) ?? '' }),
  );
  const [only, ...rest] = events;
  expect(rest).toEqual([]);
  return only?.type === 'fatal' ? only.error.reason : undefined;
}

describe('firstRecordKeys', () => {
  it('reads the first line of JSONL, the first element of an array, or the object', () => {
    expect(firstRecordKeys('{"a":1,"b":2}\n{"c":3}\n')).toEqual(['a', 'b']);
    expect(firstRecordKeys(' [ {"q":"x ] } \\" {","gold":[1,{"z":2}]}, {"cut')).toEqual([
      'q',
      'gold',
    ]);
    expect(firstRecordKeys('{"info": {}, "rows": []}')).toEqual(['info', 'rows']);
    expect(firstRecordKeys('[1, 2]')).toBeNull();
    expect(firstRecordKeys('hello world')).toBeNull();
    expect(firstRecordKeys('[{"cut": "sho')).toBeNull();
    expect(firstRecordHint('{}')).toBe('; its first record is an empty object');
    expect(firstRecordHint('{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1}')).toBe(
      '; its first record has the keys a, b, c, d, e, f and 2 more',
    );
  });

  it('names what SWE-agent’s predictions file holds, which is no trajectory', async () => {
    expect(
      await fatalReason(
        'swe-agent/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/all_preds.jsonl',
      ),
    ).toBe(
      'unknown format: it matches none of the known formats (agentworldbench, atif, intercode, intercode-human-sql, mini-swe-agent, openai-messages, openhands, sharegpt, swe-agent, tau-bench-v1, tau2-bench); its first record has the keys model_name_or_path, instance_id, model_patch',
    );
  });
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `firstRecordKeys on InterCode's task files ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('names the keys of the task files, also when the head cuts the array short', async () => {
      expect(await fatalReason('intercode/data/nl2bash/nl2bash_fs_1.json')).toMatch(
        /; its first record has the keys query, gold$/,
      );
      const spider = 'intercode/data/sql/spider/ic_spider_dev.json';
      expect(readFileSync(sharedDataPath(spider)).byteLength).toBeGreaterThan(HEAD_BYTES);
      expect(await fatalReason(spider)).toMatch(
        /; its first record has the keys db, gold, query, hardness, db_tables$/,
      );
    });
  },
);
