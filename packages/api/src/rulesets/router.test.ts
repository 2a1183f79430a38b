import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { loadItems } from '@terrarium/fidelity/testing';
import { defaultRuleSet, ruleSetYaml } from '@terrarium/rubrics';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../router';
import { PROGRAM_PRINCIPAL, type Principal } from '../trpc';

const RESEARCHER: Principal = { kind: 'user', userId: '1', name: 'ada', role: 'researcher' };
const LABELER: Principal = { kind: 'user', userId: '2', name: 'lee', role: 'labeler' };

const DRAFT = `name: default-tool
rules:
  - id: content
    type: content
  - id: exact
    type: metric
    metric: exact-match
criteria: []
`;

describe('rulesets router', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });
  const as = (principal: Principal) => appRouter.createCaller({ store, principal });

  it('lists the built-in defaults and serves one as a YAML document', async () => {
    const list = await as(LABELER).rulesets.list();
    expect(list.find((entry) => entry.name === 'default-terminal')).toEqual({
      name: 'default-terminal',
      latestVersion: null,
      versions: 0,
      author: 'terrarium',
      message: 'built-in default',
      updatedAt: null,
      builtin: true,
    });
    const got = await as(LABELER).rulesets.get({ name: 'default-tool' });
    expect(got.version).toBeNull();
    expect(got.document).toBe(ruleSetYaml(defaultRuleSet('tool')));
    const schema = await as(LABELER).rulesets.schema();
    expect(schema['title']).toBe('Terrarium rule set');
  });

  it('saves versions with who and why, diffs them, and refuses bad documents and labelers', async () => {
    const first = await as(RESEARCHER).rulesets.save({
      document: ruleSetYaml(defaultRuleSet('tool')),
      message: 'start from the default',
    });
    const second = await as(PROGRAM_PRINCIPAL).rulesets.save({
      document: DRAFT,
      message: 'add exact',
    });
    expect([first.version, first.author, second.version, second.author]).toEqual([
      1,
      'ada',
      2,
      'program',
    ]);
    expect(
      (await as(LABELER).rulesets.versions({ name: 'default-tool' })).map((v) => v.message),
    ).toEqual(['add exact', 'start from the default']);
    const diff = await as(RESEARCHER).rulesets.diff({ name: 'default-tool', from: 1, to: 2 });
    // The draft's content rule has no description any more: changed.
    expect(diff.entries).toEqual([
      { kind: 'rule', id: 'content', change: 'changed' },
      { kind: 'rule', id: 'exact', change: 'added' },
      { kind: 'criterion', id: 'format', change: 'removed' },
      { kind: 'criterion', id: 'facts', change: 'removed' },
      { kind: 'criterion', id: 'consistency', change: 'removed' },
      { kind: 'criterion', id: 'realism', change: 'removed' },
      { kind: 'criterion', id: 'invented-outcome', change: 'removed' },
      { kind: 'combine', id: 'combine', change: 'changed' },
    ]);
    expect(diff.lines.filter((line) => line.kind === 'added').map((line) => line.text)).toContain(
      '    metric: exact-match',
    );

    await expect(
      as(RESEARCHER).rulesets.save({
        document: DRAFT.replace('exact-match', 'exact'),
        message: 'typo',
      }),
    ).rejects.toThrow(/rules\.1\.metric \(7:13\)/);
    await expect(
      as(LABELER).rulesets.save({ document: DRAFT, message: 'x' }),
    ).rejects.toBeInstanceOf(TRPCError);
    const validated = await as(RESEARCHER).rulesets.validate({ document: 'name: x\nrules: 3\n' });
    expect(validated.ok ? [] : validated.issues.map((i) => [i.field, i.line])).toEqual([
      ['rules', 2],
    ]);
    // A custom rule that can score nothing is refused where it is written, as the editor shows it.
    const noScore = [
      'name: custom-typo',
      'rules:',
      '  - id: exact',
      '    type: metric',
      '    metric: exact-match',
      '  - id: mine',
      '    type: custom',
      '    source: |',
      '      function scor(item) { return 1 }',
      '',
    ].join('\n');
    const checked = await as(RESEARCHER).rulesets.validate({ document: noScore });
    expect(checked).toEqual({
      ok: false,
      issues: [
        {
          field: 'rules.1.source',
          message:
            'the rule defines no function score(item) (write `function score(item) { … }` or `export function score`)',
          line: 8,
          column: 13,
        },
      ],
    });
    await expect(
      as(RESEARCHER).rulesets.save({ document: noScore, message: 'typo' }),
    ).rejects.toThrow(/^rules\.1\.source \(8:13\): the rule defines no function score\(item\)/);
    const fixed = noScore.replace('scor(item)', 'score(item)');
    expect(await as(RESEARCHER).rulesets.validate({ document: fixed })).toEqual({
      ok: true,
      issues: [],
      name: 'custom-typo',
    });
  });

  it('diffs versions a program posted as one-line JSON rule by rule', async () => {
    const one = JSON.stringify({ ...defaultRuleSet('terminal'), name: 'one-line' });
    const weighted = JSON.stringify({
      ...defaultRuleSet('terminal'),
      name: 'one-line',
      combine: { rules: 1, criteria: 0.25 },
    });
    await as(PROGRAM_PRINCIPAL).rulesets.save({ document: one, message: 'first' });
    await as(PROGRAM_PRINCIPAL).rulesets.save({ document: weighted, message: 'weigh criteria' });
    const diff = await as(RESEARCHER).rulesets.diff({ name: 'one-line', from: 1, to: 2 });
    // Stored as posted (one line each), diffed indented: only the criteria weight's line changes.
    expect(diff.from.document).toBe(one);
    expect(
      diff.lines.filter((line) => line.kind !== 'same').map((line) => [line.kind, line.text]),
    ).toEqual([
      ['added', '    "criteria": 0.25'],
      ['removed', '    "criteria": 0'],
    ]);
  });

  it(
    'previews a draft against the last saved version on real items',
    { timeout: 30_000 },
    async () => {
      const real = (await loadItems('tau2/airline')).slice(0, 12);
      const items = real.map((item) => ({
        prediction: item.real.slice(0, Math.ceil(item.real.length * 0.7)),
        reference: item.real,
        history: item.history,
        action: item.action,
        domain: 'tool',
      }));
      // The draft drops the exact-match rule saved in version 2: scores change where exact was 0.
      const preview = await as(RESEARCHER).rulesets.preview({
        document: DRAFT.replace(/  - id: exact\n    type: metric\n    metric: exact-match\n/, ''),
        source: { kind: 'items', items },
        sample: { kind: 'worst', n: 5 },
      });
      if (!preview.ok) throw new Error('draft did not parse');
      expect(preview.ruleSet).toEqual({ name: 'default-tool', savedVersion: 2, domain: null });
      expect(preview.items).toHaveLength(5);
      // Every item here is scored (the rule set applies to each), so no score is n/a.
      const scores = preview.items.map((item) => item.draft.score ?? Number.NaN);
      expect(scores.every(Number.isFinite)).toBe(true);
      expect(scores).toEqual(scores.toSorted((a, b) => a - b));
      for (const [at, item] of preview.items.entries()) {
        const draft = scores[at] ?? Number.NaN;
        // Saved = (content + exact(0)) / 2; the draft is content alone.
        expect(item.saved?.score).toBeCloseTo(draft / 2, 12);
        expect(item.delta).toBeCloseTo(draft / 2, 12);
      }
      expect(preview.summary.changed).toBe(scores.filter((score) => score > 0).length);
      const broken = await as(RESEARCHER).rulesets.preview({
        document: 'name: x\nrules:\n  - id: a\n    type: nope\n',
        source: { kind: 'items', items },
        sample: { kind: 'first', n: 1 },
      });
      expect(broken.ok ? [] : broken.issues.map((i) => i.field)).toEqual(['rules.0.type']);
    },
  );
});
