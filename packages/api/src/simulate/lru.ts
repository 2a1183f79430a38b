/** A small map that forgets its least recently used entry beyond `capacity`. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets `key`, only while it still maps to `value` when one is given. */
  delete(key: string, value?: V): void {
    if (value === undefined || this.entries.get(key) === value) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
