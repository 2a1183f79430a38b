import type { LabelingItem } from '@terrarium/api';
import type { BenchItem, BenchTurn } from '@terrarium/schema';

/** The n-th earlier turn of a terminal item: `ls n` and its output. */
export function benchTurn(n: number): BenchTurn {
  return {
    action: { type: 'command', command: `ls ${n}`, interpreter: 'bash' },
    observation: { kind: 'text', content: `out ${n}`, callId: null },
  };
}

export function benchItem(overrides: Partial<BenchItem> = {}): BenchItem {
  return {
    id: 'item-1',
    task: 'swe-agent/ctf',
    domain: 'swe',
    split: 'test',
    origin: { dataset: 'demo', trajectory: 'ctf-1', stepIndex: 4 },
    turnIndex: 4,
    totalTurns: 16,
    context: { task: 'Decrypt msg.enc.', systemPrompt: null, tools: [] },
    history: [],
    action: { type: 'command', command: 'open chall.py', interpreter: 'bash' },
    real: { kind: 'text', content: '1:import string', callId: null },
    ...overrides,
  };
}

/** What `labels.next` returns for a leased item of a blind queue. */
export function labelingItem(overrides: Partial<LabelingItem> = {}): LabelingItem {
  return {
    queue: { id: '7', name: 'first queue', blind: true, criteria: [] },
    lease: { ordinal: 1, expiresAt: '2026-11-29T21:05:00.000Z' },
    ordinal: 1,
    ownLabel: null,
    item: benchItem(),
    mode: { kind: 'open' },
    prediction: { observation: null, error: null },
    progress: { labeled: 0, items: 3 },
    scores: null,
    otherLabels: null,
    ...overrides,
  };
}
