import { describe, expect, it } from 'vitest';
import { draftStorageKey, forgetDraft, loadDraft, parseDraft, saveDraft } from './label-drafts';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe('label drafts kept in the browser', () => {
  const key = draftStorageKey({ labeler: 'u-7', queueId: '3', item: 'lease:12' });

  it('keeps a draft per labeler, queue and item, and gives it back whole', () => {
    const storage = memoryStorage();
    const draft = { scores: { format: 5, 'invented-outcome': null }, comment: 'ok', flagged: true };
    saveDraft(storage, key, draft);
    expect(key).toBe('terrarium.label-draft:u-7:3:lease:12');
    expect(loadDraft(storage, key)).toEqual(draft);
    expect(
      loadDraft(storage, draftStorageKey({ labeler: 'u-8', queueId: '3', item: 'lease:12' })),
    ).toBe(null);
    forgetDraft(storage, key);
    expect(storage.items.size).toBe(0);
  });

  it('leaves nothing behind for an empty draft', () => {
    const storage = memoryStorage();
    saveDraft(storage, key, { scores: { format: 2 }, comment: '', flagged: false });
    saveDraft(storage, key, { scores: { format: null }, comment: '', flagged: false });
    expect(storage.items.size).toBe(0);
  });

  it('ignores what is not a draft', () => {
    expect(parseDraft(null)).toBe(null);
    expect(parseDraft('{')).toBe(null);
    expect(parseDraft('[]')).toBe(null);
    expect(parseDraft('{"scores":{"a":"5"},"comment":"","flagged":false}')).toBe(null);
    expect(parseDraft('{"scores":{},"comment":3,"flagged":false}')).toBe(null);
    expect(parseDraft('{"scores":{"a":2},"comment":"","flagged":false}')).toEqual({
      scores: { a: 2 },
      comment: '',
      flagged: false,
    });
  });
});
