import { describe, expect, it } from 'vitest';
import { buildBenchRequest, startRunRequest, type BuildBenchForm } from './bench-forms';

const form: BuildBenchForm = {
  name: ' tau2-retail ',
  datasets: ['tau2-bench'],
  sampling: 'agentworld',
  seed: '',
  devFraction: '',
  maxPerTask: '',
};

describe('buildBenchRequest', () => {
  it('turns the form into bench.build input with the CLI defaults', () => {
    expect(buildBenchRequest(form)).toEqual({
      ok: true,
      value: {
        name: 'tau2-retail',
        datasets: ['tau2-bench'],
        sampling: { kind: 'agentworld' },
        seed: 0,
        devFraction: 0,
      },
    });
    expect(
      buildBenchRequest({ ...form, sampling: 'random:3', seed: '42', devFraction: '0.2' }),
    ).toMatchObject({
      ok: true,
      value: { sampling: { kind: 'random', count: 3 }, seed: 42, devFraction: 0.2 },
    });
  });

  it('caps each task stratum as --max-per-task does, and leaves the cap out when empty', () => {
    expect(buildBenchRequest({ ...form, maxPerTask: ' 50 ' })).toEqual({
      ok: true,
      value: {
        name: 'tau2-retail',
        datasets: ['tau2-bench'],
        sampling: { kind: 'agentworld' },
        seed: 0,
        devFraction: 0,
        maxItemsPerTask: 50,
      },
    });
    const uncapped = buildBenchRequest({ ...form, maxPerTask: ' ' });
    expect(uncapped.ok && Object.keys(uncapped.value)).toEqual([
      'name',
      'datasets',
      'sampling',
      'seed',
      'devFraction',
    ]);
  });

  it('names what is wrong', () => {
    expect(buildBenchRequest({ ...form, name: ' ' })).toEqual({
      ok: false,
      error: 'Name the bench.',
    });
    expect(buildBenchRequest({ ...form, datasets: [] })).toEqual({
      ok: false,
      error: 'Choose at least one dataset.',
    });
    expect(buildBenchRequest({ ...form, sampling: 'random:0' })).toEqual({
      ok: false,
      error: 'Sampling is agentworld, all or random:N with N ≥ 1.',
    });
    expect(buildBenchRequest({ ...form, seed: '1.5' })).toEqual({
      ok: false,
      error: 'The seed is a whole number.',
    });
    expect(buildBenchRequest({ ...form, devFraction: '1.5' })).toEqual({
      ok: false,
      error: 'The dev fraction is between 0 and 1.',
    });
    // What `--max-per-task` refuses (`a whole number from 1 up`), and bench.build's input too.
    for (const maxPerTask of ['0', '-3', '2.5', '1e400', 'x', '1,000']) {
      expect(buildBenchRequest({ ...form, maxPerTask })).toEqual({
        ok: false,
        error:
          'Max per task is a whole number from 1 up (items per task stratum), or empty for no cap.',
      });
    }
  });
});

describe('startRunRequest', () => {
  const run = {
    sims: ['replay', 'retrieval'],
    mode: 'open',
    closedSteps: '3',
    split: 'test',
    judge: '',
    judgeMode: 'score',
    judgeRepeats: '1',
    judgeTemperature: '0',
  } as const;

  it('runs open loop without a judge by default', () => {
    expect(startRunRequest(run)).toEqual({
      ok: true,
      value: { sims: ['replay', 'retrieval'], mode: { kind: 'open' }, split: 'test', judge: null },
    });
  });

  it('reads closed loop with k steps and a pinned judge', () => {
    expect(
      startRunRequest({
        ...run,
        mode: 'closed',
        judge: 'openai:http://127.0.0.1:8000/v1#judge',
      }),
    ).toEqual({
      ok: true,
      value: {
        sims: ['replay', 'retrieval'],
        mode: { kind: 'closed', steps: 3 },
        split: 'test',
        judge: {
          spec: 'openai:http://127.0.0.1:8000/v1#judge',
          temperature: 0,
          repeats: 1,
          mode: 'score',
        },
      },
    });
  });

  it('takes a Turing judge asked k times at a temperature, as `bench run --judge-…` does', () => {
    expect(
      startRunRequest({
        ...run,
        judge: 'openai:http://127.0.0.1:8000/v1#judge',
        judgeMode: 'turing',
        judgeRepeats: '3',
        judgeTemperature: '0.7',
      }),
    ).toMatchObject({
      ok: true,
      value: {
        judge: {
          spec: 'openai:http://127.0.0.1:8000/v1#judge',
          temperature: 0.7,
          repeats: 3,
          mode: 'turing',
        },
      },
    });
    const judged = { ...run, judge: 'openai:http://127.0.0.1:8000/v1#judge' };
    expect(startRunRequest({ ...judged, judgeRepeats: '11' })).toEqual({
      ok: false,
      error: 'The judge judges each item 1 to 10 times.',
    });
    expect(startRunRequest({ ...judged, judgeRepeats: '1.5' })).toMatchObject({ ok: false });
    expect(startRunRequest({ ...judged, sims: ['replay'], judgeMode: 'pairwise' })).toEqual({
      ok: false,
      error: 'A pairwise judge compares two simulators: choose at least two.',
    });
    for (const judgeTemperature of ['', '-0.1', '2.5', 'warm']) {
      expect(startRunRequest({ ...judged, judgeTemperature })).toEqual({
        ok: false,
        error: 'The judge’s temperature is between 0 and 2.',
      });
    }
  });

  it('refuses an empty simulator list, k = 0 and a judge that is no spec', () => {
    expect(startRunRequest({ ...run, sims: [] })).toEqual({
      ok: false,
      error: 'Choose at least one simulator.',
    });
    expect(startRunRequest({ ...run, mode: 'closed', closedSteps: '0' })).toEqual({
      ok: false,
      error: 'Closed loop needs k ≥ 1 steps.',
    });
    expect(startRunRequest({ ...run, judge: 'gpt-4' })).toEqual({
      ok: false,
      error: 'The judge is an openai:URL#MODEL spec.',
    });
  });
});
