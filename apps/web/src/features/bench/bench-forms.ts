import {
  parseSampling,
  SimSpec,
  type BenchRunMode,
  type BenchSplit,
  type JudgeConfig,
  type Sampling,
} from '@terrarium/schema';

export type FormResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface BuildBenchForm {
  name: string;
  datasets: readonly string[];
  /** `agentworld`, `all` or `random:N`, as on the command line. */
  sampling: string;
  seed: string;
  devFraction: string;
  /** `--max-per-task`: items per task stratum (`tau2-bench/retail`); empty for no cap. */
  maxPerTask: string;
}

export interface BuildBenchRequest {
  name: string;
  datasets: string[];
  sampling: Sampling;
  seed: number;
  devFraction: number;
  /** Left out for no cap, as the CLI leaves it out without `--max-per-task`. */
  maxItemsPerTask?: number;
}

/** The `bench.build` input for what the form holds, or the first thing wrong with it. */
export function buildBenchRequest(form: BuildBenchForm): FormResult<BuildBenchRequest> {
  const name = form.name.trim();
  if (name === '') return { ok: false, error: 'Name the bench.' };
  if (form.datasets.length === 0) return { ok: false, error: 'Choose at least one dataset.' };
  const sampling = parseSampling(form.sampling.trim());
  if (sampling === null) {
    return { ok: false, error: 'Sampling is agentworld, all or random:N with N ≥ 1.' };
  }
  const seed = Number(form.seed.trim() === '' ? '0' : form.seed);
  if (!Number.isSafeInteger(seed)) return { ok: false, error: 'The seed is a whole number.' };
  const devFraction = Number(form.devFraction.trim() === '' ? '0' : form.devFraction);
  if (!Number.isFinite(devFraction) || devFraction < 0 || devFraction > 1) {
    return { ok: false, error: 'The dev fraction is between 0 and 1.' };
  }
  const cap = form.maxPerTask.trim();
  const maxItemsPerTask = Number(cap);
  // The CLI's `--max-per-task` and bench.build's input take the same: a whole number from 1 up.
  if (cap !== '' && !(Number.isSafeInteger(maxItemsPerTask) && maxItemsPerTask >= 1)) {
    return {
      ok: false,
      error:
        'Max per task is a whole number from 1 up (items per task stratum), or empty for no cap.',
    };
  }
  return {
    ok: true,
    value: {
      name,
      datasets: [...form.datasets],
      sampling,
      seed,
      devFraction,
      ...(cap === '' ? {} : { maxItemsPerTask }),
    },
  };
}

export interface StartRunForm {
  sims: readonly string[];
  mode: 'open' | 'closed';
  closedSteps: string;
  split: BenchSplit;
  /** An optional judge spec; empty for rule scores only. */
  judge: string;
  /**
   * The judge's mode: score (five dimensions and Overall), turing (which is real?) or pairwise
   * (which of two simulators' predictions is closer; judged once the run has ended).
   */
  judgeMode: JudgeConfig['mode'];
  /** Judgings per item (`--judge-repeats`), 1-10. */
  judgeRepeats: string;
  /** The judge's sampling temperature (`--judge-temperature`), 0-2. */
  judgeTemperature: string;
}

export interface StartRunRequest {
  sims: string[];
  mode: BenchRunMode;
  split: BenchSplit;
  judge: JudgeConfig | null;
}

export function startRunRequest(form: StartRunForm): FormResult<StartRunRequest> {
  if (form.sims.length === 0) return { ok: false, error: 'Choose at least one simulator.' };
  let mode: BenchRunMode = { kind: 'open' };
  if (form.mode === 'closed') {
    const steps = Number(form.closedSteps);
    if (!Number.isSafeInteger(steps) || steps < 1) {
      return { ok: false, error: 'Closed loop needs k ≥ 1 steps.' };
    }
    mode = { kind: 'closed', steps };
  }
  const judgeText = form.judge.trim();
  let judge: JudgeConfig | null = null;
  if (judgeText !== '') {
    const spec = SimSpec.safeParse(judgeText);
    if (!spec.success) return { ok: false, error: 'The judge is an openai:URL#MODEL spec.' };
    if (form.judgeMode === 'pairwise' && form.sims.length < 2) {
      return { ok: false, error: 'A pairwise judge compares two simulators: choose at least two.' };
    }
    const repeats = Number(form.judgeRepeats.trim());
    if (!Number.isSafeInteger(repeats) || repeats < 1 || repeats > 10) {
      return { ok: false, error: 'The judge judges each item 1 to 10 times.' };
    }
    const temperature = Number(form.judgeTemperature.trim());
    if (form.judgeTemperature.trim() === '' || !(temperature >= 0 && temperature <= 2)) {
      return { ok: false, error: 'The judge’s temperature is between 0 and 2.' };
    }
    judge = { spec: spec.data, temperature, repeats, mode: form.judgeMode };
  }
  return { ok: true, value: { sims: [...form.sims], mode, split: form.split, judge } };
}
