import type { PreviewResult, PreviewRow } from './preview-query';

type PreviewOk = Extract<PreviewResult, { ok: true }>;
type ItemReward = PreviewRow['draft'];

/** Builders of what `rulesets.preview` returns; tests override what they look at. */
export function itemReward(score: number, overrides: Partial<ItemReward> = {}): ItemReward {
  return {
    score,
    breakdown: [{ id: 'content', kind: 'rule', score, weight: 1 }],
    ...overrides,
  };
}

export function previewRow(overrides: Partial<PreviewRow> = {}): PreviewRow {
  return {
    itemId: '000bdf3628a1c2e4',
    task: 'intercode/bash',
    place: { trajectory: 'intercode-bash-fs1-7', turnIndex: 2, totalTurns: 5 },
    action: 'ls -la /testbed',
    domain: 'terminal',
    draft: itemReward(1),
    saved: null,
    delta: null,
    ...overrides,
  };
}

export function previewResult(
  items: PreviewRow[],
  overrides: Partial<Omit<PreviewOk, 'ok' | 'items'>> = {},
): PreviewOk {
  return {
    ok: true,
    ruleSet: { name: 'my-terminal', savedVersion: null, domain: 'terminal' },
    sim: 'retrieval',
    items,
    summary: { items: items.length, meanDraft: null, meanSaved: null, changed: 0 },
    ...overrides,
  };
}
