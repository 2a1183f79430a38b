import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import type { Step, Trajectory } from '@terrarium/schema';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlExecutor } from './executor';
import { toJsonPayload } from './json-payload';
import { runMigrations } from './migrate';
import { createPgliteExecutor } from './pglite-executor';
import {
  actionSearchText,
  jsonbText,
  numericText,
  searchText,
  searchVectorOf,
  type SearchVector,
} from './search-vector';

let db: SqlExecutor;

beforeAll(async () => {
  db = await createPgliteExecutor(undefined);
  await runMigrations(db);
});

afterAll(async () => {
  await db.close();
});

type Pairs = [string, number[]][];

function pairs(vector: SearchVector): Pairs {
  return vector.lexemes.map((lexeme, at) => [lexeme, vector.positions[at] ?? []]);
}

function pairsOf(value: unknown): Pairs {
  if (value === null) return [];
  if (!Array.isArray(value)) throw new Error('expected an array of [lexeme, positions]');
  return value.map((pair: unknown) => {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !Array.isArray(pair[1])) {
      throw new Error('expected [lexeme, positions]');
    }
    return [pair[0], pair[1].map(Number)];
  });
}

/** `to_tsvector('simple', text)` of each text, as [lexeme, positions] pairs. */
async function databaseVectors(texts: readonly string[]): Promise<Pairs[]> {
  const vectors: Pairs[] = [];
  for (let start = 0; start < texts.length; start += 2000) {
    const rows = await db.query(
      `SELECT (SELECT json_agg(json_build_array(lexeme, positions))
         FROM unnest(to_tsvector('simple', x.t))) AS v
       FROM unnest($1::text[]) WITH ORDINALITY AS x(t, o) ORDER BY x.o`,
      [texts.slice(start, start + 2000)],
    );
    for (const row of rows) vectors.push(pairsOf(row['v']));
  }
  return vectors;
}

/**
 * What import wrote before search vectors were computed in JavaScript, as the reference: the step
 * row's JSON through `json_to_recordset`, and `terrarium_search_vector` over its action fields,
 * reasoning and observation (migration 001).
 */
async function stepReferenceVectors(steps: readonly Step[]): Promise<Pairs[]> {
  const vectors: Pairs[] = [];
  for (let start = 0; start < steps.length; start += 1000) {
    const payload = toJsonPayload(
      steps.slice(start, start + 1000).map((step, at) => ({
        o: at,
        action: step.action,
        reasoning: step.reasoning,
        content: step.observation?.content ?? null,
      })),
    );
    const rows = await db.query(
      `SELECT (SELECT json_agg(json_build_array(lexeme, positions)) FROM unnest(
         terrarium_search_vector(
           concat_ws(' ', x.action->>'name', x.action->>'command', x.action->>'keys',
             x.action->>'text', (x.action->'arguments')::text),
           x.reasoning, x.content))) AS v
       FROM json_to_recordset($1::json) AS x(o integer, action jsonb, reasoning text, content text)
       ORDER BY x.o`,
      [payload],
    );
    for (const row of rows) vectors.push(pairsOf(row['v']));
  }
  return vectors;
}

function stepVector(step: Step): SearchVector | null {
  return searchVectorOf(
    searchText([actionSearchText(step.action), step.reasoning, step.observation?.content ?? null]),
  );
}

function filesUnder(dir: string, extension: RegExp): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path, extension) : [path];
    })
    .filter((path) => extension.test(path))
    .toSorted();
}

async function trajectoriesOf(files: readonly string[]): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for (const file of files) {
    for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
      if (event.type === 'trajectory') trajectories.push(event.trajectory);
    }
  }
  return trajectories;
}

/** Compares every step the JavaScript path computes with the reference; returns the tallies. */
async function compareSteps(trajectories: readonly Trajectory[]) {
  const steps = trajectories.flatMap((trajectory) => trajectory.steps);
  const reference = await stepReferenceVectors(steps);
  const mismatches: { step: number; ours: Pairs; database: Pairs }[] = [];
  let computed = 0;
  steps.forEach((step, at) => {
    const ours = stepVector(step);
    if (ours === null) return;
    computed++;
    const database = reference[at] ?? [];
    if (JSON.stringify(pairs(ours)) !== JSON.stringify(database)) {
      mismatches.push({ step: at, ours: pairs(ours), database });
    }
  });
  const headers = trajectories.map((trajectory) =>
    searchText([trajectory.externalId, trajectory.task, null]),
  );
  const headerReference = await databaseVectors(headers);
  const headerMismatches = headers.filter((text, at) => {
    const ours = searchVectorOf(text);
    return ours !== null && JSON.stringify(pairs(ours)) !== JSON.stringify(headerReference[at]);
  });
  return {
    steps: steps.length,
    computed,
    mismatches: mismatches.slice(0, 5),
    mismatchCount: mismatches.length,
    headerMismatches,
  };
}

describe('search vectors computed in JavaScript', () => {
  it('split words, numbers and hyphenated compounds as the default parser does', () => {
    expect(searchVectorOf('Get-User a-b-1 12e5x -12abc ab-12-cd 1_000')).toEqual({
      // Get-User, get, user, a-b, a, b, 1, 12e5, x, -12, abc, ab, -12, cd, 1, 000
      lexemes: [
        '-12',
        '000',
        '1',
        '12e5',
        'a',
        'a-b',
        'ab',
        'abc',
        'b',
        'cd',
        'get',
        'get-user',
        'user',
        'x',
      ],
      positions: [
        [10, 13],
        [16],
        [7, 15],
        [8],
        [5],
        [4],
        [12],
        [11],
        [6],
        [14],
        [2],
        [1],
        [3],
        [9],
      ],
    });
    // Tags, entities, `~` names and anything outside ASCII are left to the database.
    expect(searchVectorOf('<b>bold</b>')).toBeNull();
    expect(searchVectorOf('fish &amp; chips')).toBeNull();
    expect(searchVectorOf('cd ~user')).toBeNull();
    expect(searchVectorOf('café')).toBeNull();
    expect(searchVectorOf('a < b, 1 <2')).not.toBeNull();
  });

  it('print JSON arguments as jsonb does', () => {
    expect(jsonbText({ zz: [1.5e-7, 1e21, -0], a: 'x"\n\u0001', bb: { b: null, a: true } })).toBe(
      '{"a": "x\\"\\n\\u0001", "bb": {"a": true, "b": null}, "zz": [0.00000015, 1000000000000000000000, 0]}',
    );
    expect(numericText(123.456e5)).toBe('12345600');
    expect(numericText(-2.5e-3)).toBe('-0.0025');
  });

  it('equal to_tsvector on generated text full of separators, signs and exponents', async () => {
    const alphabet = 'abeEXz0159-+_:@ <>&;#~"=!?\\,\t\n\r()[]{}$%*|^`\'';
    let seed = 20_261_202;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const texts = Array.from({ length: 30_000 }, () => {
      let text = '';
      const length = 1 + Math.floor(next() * 16);
      for (let at = 0; at < length; at++) text += alphabet[Math.floor(next() * alphabet.length)];
      return text;
    });
    const reference = await databaseVectors(texts);
    let computed = 0;
    const mismatches = texts.filter((text, at) => {
      const ours = searchVectorOf(text);
      if (ours === null) return false;
      computed++;
      return JSON.stringify(pairs(ours)) !== JSON.stringify(reference[at]);
    });
    expect(mismatches).toEqual([]);
    expect(computed).toBe(22_476);
  });

  it('equal to_tsvector at the limits: long tokens, 255 positions, position 16,383', async () => {
    const texts = [
      `x ${'a'.repeat(2046)} ${'b'.repeat(2047)}-c y`,
      `${'w '.repeat(300)}z`,
      Array.from({ length: 17_000 }, (_, at) => `k${at % 5000}`).join(' '),
    ];
    const reference = await databaseVectors(texts);
    texts.forEach((text, at) => {
      const ours = searchVectorOf(text);
      expect(ours === null ? null : pairs(ours)).toEqual(reference[at]);
    });
  });

  it('equal what import stored before on every step of tau-bench, tau2-bench and SWE-agent', async () => {
    const files = [
      ...filesUnder(sharedDataPath('tau2-bench/results'), /\.json$/),
      sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
      ...filesUnder(sharedDataPath('swe-agent'), /\.traj$/),
    ];
    const result = await compareSteps(await trajectoriesOf(files));
    expect(result.mismatches).toEqual([]);
    expect(result.mismatchCount).toBe(0);
    expect(result.headerMismatches).toEqual([]);
    expect({ steps: result.steps, computed: result.computed }).toEqual({
      steps: 7166,
      computed: 5560,
    });
  });

  describe.skipIf(!sharedDataAvailable('intercode'))(
    `on InterCode ${UNSHIPPED_DATA_REASON}`,
    () => {
      it('equal what import stored before on every step of InterCode bash and SQL', async () => {
        const files = filesUnder(sharedDataPath('intercode/data/results'), /\.json$/);
        const result = await compareSteps(await trajectoriesOf(files));
        expect(result.mismatches).toEqual([]);
        expect(result.mismatchCount).toBe(0);
        expect(result.headerMismatches).toEqual([]);
        expect({ steps: result.steps, computed: result.computed }).toEqual({
          steps: 8056,
          computed: 7903,
        });
      });
    },
  );
});
