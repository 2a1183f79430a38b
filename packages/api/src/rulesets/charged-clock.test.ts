import { describe, expect, it } from 'vitest';
import { chargedClock } from './charged-clock';

function source(readings: number[]): () => number {
  let at = 0;
  return () => {
    const value = readings[Math.min(at, readings.length - 1)];
    at++;
    if (value === undefined) throw new Error('no readings');
    return value;
  };
}

describe('chargedClock', () => {
  it('charges wall time while the process runs, and only its CPU time while it is starved', () => {
    // Readings: the clock's start, then three reads. Between them: 10 ms of wall with 10 ms of
    // CPU (running), 100 ms of wall with 5 ms of CPU (other processes held the cores), then 10 ms
    // of wall with 20 ms of CPU (two of this process's threads ran: wall time again).
    const now = chargedClock(source([0, 10, 110, 120]), source([0, 10, 15, 35]));
    expect(now()).toBe(10);
    expect(now()).toBe(15);
    expect(now()).toBe(25);
  });

  it('never runs backwards', () => {
    const now = chargedClock(source([0, 5, 4]), source([0, 5, 9]));
    expect(now()).toBe(5);
    expect(now()).toBe(5);
  });

  it('reads the real clocks by default, advancing with a busy loop', () => {
    const now = chargedClock();
    const start = now();
    const until = performance.now() + 30;
    while (performance.now() < until) {
      // Busy: CPU time and wall time both pass.
    }
    expect(now() - start).toBeGreaterThan(0);
  });
});
