import { readTrajectories } from '@terrarium/formats';
import { describe, expect, it } from 'vitest';
import { readDataset } from '../real-data.testkit';
import { officialRows } from './official-rows.testkit';

async function* bytesOf(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text);
}

/**
 * `terrarium import` of an AgentWorldBench file (the dataset importer in packages/formats, not
 * `bench import`) keeps numeric ids above 2^53 digit for digit, as the bench importer does.
 */
describe('dataset import of AgentWorldBench rows keeps ids above 2^53 (real tau2 retail)', () => {
  it('gives each trajectory the digits of its line', async () => {
    const retail = await readDataset('tau2-retail');
    const rows = officialRows(retail.slice(0, 3), {
      task: 'mcp',
      firstId: 9007199254740990n,
      systemStr: 'You simulate the tools of a retail store.',
    });
    const text = rows.map((row) => `${row.line}\n`).join('');
    const ids: string[] = [];
    for await (const event of readTrajectories(bytesOf(text), { fileName: 'mcp_test.jsonl' })) {
      if (event.type === 'trajectory') ids.push(event.trajectory.externalId);
      else if (event.type === 'quarantine' || event.type === 'fatal')
        throw new Error(JSON.stringify(event));
    }
    expect(ids).toHaveLength(rows.length);
    expect(ids).toEqual(rows.map((_, i) => String(9007199254740990n + BigInt(i))));
    // 2^53 + 1 is the first id a JavaScript number cannot hold.
    expect(ids).toContain('9007199254740993');
  });
});
