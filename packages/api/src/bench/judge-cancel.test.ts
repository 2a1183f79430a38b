import type { BenchRun } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiContext } from '../trpc';
import { getRun, startRun, watchRun } from './bench-service';
import { startRecordingEndpoint, type RecordingEndpoint } from './recording-endpoint.testkit';
import { openRetailBench } from './retail-bench.testkit';
import { cancelRun, resumeRun } from './run-lifecycle';

const ITEMS = 12;
// The judge answers this many requests, then holds the next ones until released.
const ANSWERED = 5;
// A judge takes this many requests at once (judge.ts, JUDGE_CONCURRENCY).
const JUDGE_CONCURRENCY = 4;

describe('a judged run canceled while its judge is busy (tau2 retail, a real endpoint over HTTP)', () => {
  let ctx: ApiContext;
  let close: () => Promise<void>;
  let judge: RecordingEndpoint;

  beforeAll(async () => {
    ({ ctx, close } = await openRetailBench({
      bench: 'judged-cancel',
      concurrency: 1,
      maxItemsPerTask: ITEMS,
    }));
    judge = await startRecordingEndpoint({ holdAfter: ANSWERED });
  }, 180_000);
  afterAll(async () => {
    await judge?.close();
    await close?.();
  });

  async function untilEnd(runId: string): Promise<BenchRun> {
    let last = await getRun(ctx, runId);
    for await (const run of watchRun(ctx, runId, undefined)) last = run;
    return last;
  }

  it('drops the judgings in flight, asks nothing more, and judges only what is left on resume', async () => {
    // Replay predicts every unit at once; each then waits for the judge.
    const started = await startRun(ctx, {
      bench: 'judged-cancel',
      sims: ['replay'],
      judge: { spec: `openai:${judge.url}#judge`, temperature: 0, repeats: 1, mode: 'score' },
      mode: { kind: 'open' },
      split: 'test',
    });
    await expect
      .poll(() => judge.bodies.length, { timeout: 60_000 })
      .toBe(ANSWERED + JUDGE_CONCURRENCY);
    expect((await cancelRun(ctx, started.id)).status).toBe('canceled');
    // The held requests are dropped by the judge's client: the worker aborted them.
    await expect.poll(() => judge.abandoned(), { timeout: 60_000 }).toBe(JUDGE_CONCURRENCY);
    judge.release();
    const canceled = await getRun(ctx, started.id);
    expect(canceled).toMatchObject({ status: 'canceled', done: ANSWERED });

    // Resumed, the units whose judging was dropped are judged again, the others once: no request
    // was sent between the cancel and the resume.
    await resumeRun(ctx, started.id);
    const ended = await untilEnd(started.id);
    expect(ended).toMatchObject({ status: 'done', done: ITEMS, failed: 0 });
    expect(judge.bodies).toHaveLength(ANSWERED + JUDGE_CONCURRENCY + (ITEMS - ANSWERED));
    // What the run counts is what the judge answered: 1 prompt and 1 completion token each.
    expect(ended.judgeUsage).toEqual({
      inputTokens: ITEMS,
      outputTokens: ITEMS,
      costUsd: null,
      unpriced: { units: ITEMS, knownUsd: 0 },
    });
  }, 180_000);
});
