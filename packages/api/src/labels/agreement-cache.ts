import { createHash } from 'node:crypto';

/**
 * Results of a pure computation kept by a digest of its inputs, the newest few. The agreement
 * page asks for the same figures again and again (each visit, the before and after judge
 * versions, a refetch after an import that changed nothing), and their bootstraps are the
 * expensive part; keyed by what they are computed from, an entry can never be stale, so nothing
 * needs invalidating when labels change: changed labels are another key.
 */
export class DigestCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly capacity: number) {}

  /** The value computed from `inputs` (anything JSON can write), computed now if not kept. */
  get(inputs: unknown, compute: () => T): T {
    const key = createHash('sha256').update(JSON.stringify(inputs)).digest('base64');
    const kept = this.entries.get(key);
    if (kept !== undefined) {
      // Refreshed: the least recently asked-for entry goes first.
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept;
    }
    const value = compute();
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
