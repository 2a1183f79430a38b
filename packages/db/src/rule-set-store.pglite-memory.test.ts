import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore } from './test-support/test-store';
import type { Store } from './store';

describe('rule set versions (PGlite in memory)', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
  });
  afterAll(async () => {
    await store.close();
  });

  it('numbers versions per name, keeps who, when and why, and serves any version', async () => {
    const first = await store.saveRuleSetVersion({
      name: 'airline',
      document: 'name: airline\nrules: []\n',
      ruleSet: { name: 'airline', rules: [] },
      author: 'ada',
      message: 'first cut',
    });
    expect(first).toMatchObject({
      name: 'airline',
      version: 1,
      author: 'ada',
      message: 'first cut',
    });
    expect(first.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // Concurrent saves never get the same number.
    const saves = await Promise.all(
      [2, 3, 4].map((n) =>
        store.saveRuleSetVersion({
          name: 'airline',
          document: `# v${n}`,
          ruleSet: { n },
          author: 'bo',
          message: `edit ${n}`,
        }),
      ),
    );
    expect(saves.map((save) => save.version).toSorted()).toEqual([2, 3, 4]);
    await store.saveRuleSetVersion({
      name: 'retail',
      document: 'x',
      ruleSet: {},
      author: 'ada',
      message: 'm',
    });

    expect((await store.listRuleSets()).map((s) => [s.name, s.version, s.versions])).toEqual([
      ['airline', 4, 4],
      ['retail', 1, 1],
    ]);
    expect((await store.listRuleSetVersions('airline')).map((v) => v.version)).toEqual([
      4, 3, 2, 1,
    ]);
    const old = await store.getRuleSetVersion('airline', 1);
    expect(old).toMatchObject({
      document: 'name: airline\nrules: []\n',
      ruleSet: { name: 'airline', rules: [] },
    });
    expect((await store.getRuleSetVersion('airline'))?.version).toBe(4);
    expect(await store.getRuleSetVersion('airline', 9)).toBeNull();
    expect(await store.getRuleSetVersion('nope')).toBeNull();
  });
});
