import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli';

/** Krippendorff's (2011) 4 observers × 12 units, as one JSONL rating per line. */
const PAPER: (number | null)[][] = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
];

async function writeRatings(lines: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'terrarium-labels-'));
  const file = path.join(dir, 'ratings.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

describe('terrarium labels agreement', () => {
  it('prints alpha at every level for N labelers as JSON', { timeout: 60_000 }, async () => {
    const file = await writeRatings(
      PAPER.flatMap((row, o) =>
        row.flatMap((value, u) =>
          value === null
            ? []
            : [JSON.stringify({ item: `u${u + 1}`, labeler: `rater-${o}`, value })],
        ),
      ),
    );
    const result = await runCli(['labels', 'agreement', file, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report: unknown = JSON.parse(result.stdout);
    expect(report).toEqual({
      items: 12,
      // u12 has a single rating: it cannot be paired and does not enter α.
      pairableItems: 11,
      labelers: 4,
      krippendorffAlpha: {
        nominal: expect.closeTo(0.743, 3),
        ordinal: expect.closeTo(0.815, 3),
        interval: expect.closeTo(0.849, 3),
        ratio: expect.closeTo(0.797, 3),
      },
    });
  });

  it(
    'says how many items two or more labelers rated when some were rated once',
    { timeout: 60_000 },
    async () => {
      // consistency: 4 items, 2 of them (c, d) rated by ann alone; clarity: all 4 rated by two.
      const ratings = [
        ['a', 'ann', 'consistency', 1],
        ['a', 'bob', 'consistency', 2],
        ['b', 'bob', 'consistency', 3],
        ['b', 'cat', 'consistency', 3],
        ['c', 'ann', 'consistency', 2],
        ['d', 'ann', 'consistency', 1],
        ['a', 'ann', 'clarity', 1],
        ['a', 'cat', 'clarity', 2],
        ['b', 'ann', 'clarity', 2],
        ['b', 'bob', 'clarity', 2],
        ['c', 'bob', 'clarity', 3],
        ['c', 'cat', 'clarity', 1],
        ['d', 'ann', 'clarity', 3],
        ['d', 'bob', 'clarity', 3],
      ].map(([item, labeler, criterion, value]) =>
        JSON.stringify({ item, labeler, criterion, value }),
      );
      const result = await runCli(['labels', 'agreement', await writeRatings(ratings)]);
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(result.stdout.split('\n').filter((line) => !line.startsWith('  '))).toEqual([
        'criterion clarity: 4 items, 3 labelers',
        'criterion consistency: 4 items (2 rated by two or more), 3 labelers',
        'all criteria pooled (item × criterion as units: differences between criteria count as agreement): 4 items, 3 labelers',
        '',
      ]);
    },
  );

  it(
    'adds cohenKappa for two labelers, per criterion too, and names bad lines',
    { timeout: 60_000 },
    async () => {
      const good = [
        { item: 'a', labeler: 'ann', criterion: 'format', value: 1 },
        { item: 'a', labeler: 'bob', criterion: 'format', value: 1 },
        { item: 'b', labeler: 'ann', criterion: 'format', value: 0 },
        { item: 'b', labeler: 'bob', criterion: 'format', value: 1 },
        { item: 'c', labeler: 'ann', criterion: 'format', value: 0 },
        { item: 'c', labeler: 'bob', criterion: 'format', value: 0 },
      ].map((line) => JSON.stringify(line));
      const result = await runCli(['labels', 'agreement', await writeRatings(good), '--json']);
      expect(result.code).toBe(0);
      const report: unknown = JSON.parse(result.stdout);
      // Pairs (1,1) (0,1) (0,0): observed agreement 2/3, chance 4/9 → κ = (2/3 − 4/9) / (5/9) = 0.4.
      expect(report).toMatchObject({
        items: 3,
        labelers: 2,
        cohenKappa: { nominal: expect.closeTo(0.4, 12), quadratic: expect.closeTo(0.4, 12) },
        byCriterion: { format: { items: 3, labelers: 2 } },
      });

      const bad = await runCli([
        'labels',
        'agreement',
        await writeRatings([...good, '{"item":"d"}']),
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/ratings\.jsonl:7: labeler/);
      // Two criteria in text: each criterion first, the pooled figure last and said to be pooled.
      const twoCriteria = await runCli([
        'labels',
        'agreement',
        await writeRatings([
          ...good,
          ...good.map((line) =>
            line.replace('"format"', '"facts"').replace(/"value":0/, '"value":5'),
          ),
        ]),
      ]);
      expect(twoCriteria.code).toBe(0);
      expect(twoCriteria.stdout.split('\n').filter((line) => !line.startsWith('  '))).toEqual([
        'criterion facts: 3 items, 2 labelers',
        'criterion format: 3 items, 2 labelers',
        'all criteria pooled (item × criterion as units: differences between criteria count as agreement): 3 items, 2 labelers',
        '',
      ]);
      // Both labelers agreeing on every item leaves α undefined, and the text says why.
      const identical = await runCli([
        'labels',
        'agreement',
        await writeRatings(good.map((line) => line.replace(/"value":0/, '"value":1'))),
      ]);
      expect(identical.stdout).toBe(
        [
          'all: 3 items, 2 labelers',
          '  alpha          all labels identical: α undefined (no variance)',
          '  kappa          all values identical: κ undefined (no variance)',
          '',
        ].join('\n'),
      );
      // A resample count that would run for hours is refused before anything is read.
      const endless = await runCli([
        'labels',
        'agreement',
        await writeRatings(good),
        '--bootstrap',
        '99999999999',
      ]);
      expect(endless.code).toBe(1);
      expect(endless.stderr).toContain(
        "option '--bootstrap [n]' argument '99999999999' is invalid. at most 100,000 resamples",
      );
    },
  );
});
