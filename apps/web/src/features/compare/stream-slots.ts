/**
 * A fixed number of slots taken in turn. A browser opens at most six HTTP/1.1 connections to a
 * server, and each server run's event stream holds one for as long as it runs: with six slow
 * endpoints streaming, a seventh run, and every other request of the page, would wait unseen.
 */
export class StreamSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /**
   * Calls `begin` once a slot is free, at once when one is. Returns `release`: before `begin` it
   * leaves the line, after it frees the slot for the next in line. Calling it again does nothing.
   */
  take(begin: () => void): () => void {
    let state: 'waiting' | 'holding' | 'released' = 'waiting';
    const go = () => {
      state = 'holding';
      begin();
    };
    if (this.#free > 0) {
      this.#free--;
      go();
    } else {
      this.#waiting.push(go);
    }
    return () => {
      if (state === 'waiting') {
        const at = this.#waiting.indexOf(go);
        if (at >= 0) this.#waiting.splice(at, 1);
      } else if (state === 'holding') {
        const next = this.#waiting.shift();
        if (next === undefined) this.#free++;
        else next();
      }
      state = 'released';
    };
  }

  /** Empties the line: those waiting never begin (the page that started them is gone). */
  clear(): void {
    this.#waiting.length = 0;
  }
}
