import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askingJudgeAgain, joinAsking, stopAsking } from './judge-asking';

/** An asking that ends, without an error, when it is stopped. */
function untilStopped(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
}

describe('the registry of judges being asked again', () => {
  let store: Store;

  beforeAll(async () => {
    store = await openMemoryStore();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it('tells a retry that joined an asking under way of its failure, as it tells the first', async () => {
    const failures: ((error: Error) => void)[] = [];
    const ask = () =>
      new Promise<void>((_resolve, reject) => {
        failures.push(reject);
      });
    const first = joinAsking(store, 'r1', ask);
    const second = joinAsking(store, 'r1', ask);
    // Asked once, for both.
    expect([failures.length, askingJudgeAgain(store, 'r1')]).toEqual([1, true]);
    failures[0]?.(new Error('the judge endpoint is misconfigured'));
    await expect(first).rejects.toThrow('the judge endpoint is misconfigured');
    // Before, the joiner was told nothing and read the failed asking as done.
    await expect(second).rejects.toThrow('the judge endpoint is misconfigured');
    expect(askingJudgeAgain(store, 'r1')).toBe(false);
  });

  it('lets every one who asked end without an error when the asking is stopped', async () => {
    const first = joinAsking(store, 'r2', untilStopped);
    const second = joinAsking(store, 'r2', untilStopped);
    expect(await stopAsking(store, 'r2')).toBe(true);
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
    expect(await stopAsking(store, 'r2')).toBe(false);
  });
});
