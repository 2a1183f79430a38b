import { cleanup, fireEvent, screen } from '@testing-library/react';
import type { BenchRun, JudgeConfig } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { createApiClient } from '../../app/trpc';
import { benchRun } from './bench.fixture';
import { RunProgressBar } from './run-progress-bar';

afterEach(cleanup);

function renderBar(
  run: BenchRun,
  missingVerdicts = 0,
  askingJudge = false,
  retryable = run.failed,
) {
  return renderWithApi(
    <RunProgressBar
      run={run}
      retryable={retryable}
      missingVerdicts={missingVerdicts}
      askingJudge={askingJudge}
      onChange={() => undefined}
      onResumed={() => undefined}
      onDeleted={() => undefined}
      streamError={null}
    />,
    createApiClient(),
  );
}

describe('RunProgressBar', () => {
  it('shows a running run’s counts, tokens and cost, and offers to cancel it', () => {
    renderBar(
      benchRun({
        done: 120,
        failed: 3,
        total: 400,
        sims: ['openai:http://127.0.0.1:8000/v1#m'],
        usage: { inputTokens: 1_234_567, outputTokens: 8900, costUsd: 1.2345 },
      }),
    );
    expect(screen.getByTestId('run-status').textContent).toBe('running');
    expect(screen.getByTestId('run-counts').textContent).toBe('120 done · 3 failed · 400 total');
    // The run's usage counts its simulators' calls only; so its label says.
    expect(screen.getByTestId('run-usage').textContent).toBe(
      '1,234,567 in / 8,900 out simulator tokens · $1.2345',
    );
    expect(screen.getByRole('progressbar', { name: 'Items done' }).getAttribute('value')).toBe(
      '123',
    );
    // Canceling asks once more, saying what is lost.
    fireEvent.click(screen.getByRole('button', { name: 'Cancel run' }));
    expect(screen.getByRole('group', { name: 'Cancel this run' }).textContent).toBe(
      'Stop it? The 277 units not recorded yet will wait until you resume the run; until then its cells cover fewer items. Stop run Keep running',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Keep running' }));
    expect(screen.getByRole('button', { name: 'Cancel run' })).toBeTruthy();
  });

  it('shows what the judge’s calls cost beside the simulators’, or that they were not recorded', () => {
    const judge: JudgeConfig = {
      spec: 'openai:http://127.0.0.1:4828/v1#judge',
      temperature: 0,
      repeats: 1,
      mode: 'score',
    };
    const judged = benchRun({
      sims: ['openai:http://127.0.0.1:8000/v1#m'],
      judge,
      usage: { inputTokens: 88_700, outputTokens: 8870, costUsd: null },
      judgeUsage: { inputTokens: 412_000, outputTokens: 61_250, costUsd: 0.5345 },
    });
    renderBar(judged);
    expect(screen.getByTestId('run-usage').textContent).toBe(
      '88,700 in / 8,870 out simulator tokens · cost not priced · judge 412,000 in / 61,250 out tokens · $0.5345',
    );
    // The judge as it was started: a Turing or pairwise judge, or k > 1, reads differently.
    expect(screen.getByTestId('run-settings').textContent).toBe(
      'open loop · test split · judge openai:http://127.0.0.1:4828/v1#judge · score · k=1 · temperature 0',
    );
    cleanup();
    renderBar({ ...judged, judgeUsage: null });
    expect(screen.getByTestId('run-usage').textContent).toBe(
      '88,700 in / 8,870 out simulator tokens · cost not priced · the judge’s calls were not recorded',
    );
  });

  it('offers no cancel once the run has ended, and shows why it failed', () => {
    renderBar(benchRun({ status: 'failed', done: 10, error: 'retrieval: no index for bench' }));
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
    expect(screen.getByRole('alert').textContent).toBe('retrieval: no index for bench');
  });

  it('offers to resume a canceled run with units left, and to delete it after asking', () => {
    renderBar(benchRun({ status: 'canceled', done: 120, failed: 3, total: 400 }));
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Resume run (277 units left)' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(screen.getByRole('group', { name: 'Delete run run run-1' }).textContent).toBe(
      'Delete it with its 123 predictions and their scores? The bench stays. Delete run run-1 Cancel',
    );
  });

  it('offers no retry for misses of replay or retrieval, which a retry finds missing again', () => {
    const missed = benchRun({ status: 'done', done: 397, failed: 3, total: 400 });
    renderBar(missed, 0, false, 0);
    expect(screen.queryByRole('button', { name: /^Retry/ })).toBeNull();
    cleanup();
    renderBar(missed, 0, false, 2);
    expect(screen.getByRole('button', { name: 'Retry 3 failed units' })).toBeTruthy();
  });

  it('offers no resume for a run that finished, and no delete while it goes', () => {
    renderBar(benchRun({ status: 'done', done: 400, total: 400 }));
    expect(screen.queryByRole('button', { name: /^Resume run/ })).toBeNull();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy();
    cleanup();
    renderBar(benchRun({ status: 'running', done: 4, total: 400 }));
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('offers a retry for failed units, and for verdicts its judge left missing', () => {
    const judge: JudgeConfig = {
      spec: 'openai:http://127.0.0.1:4828/v1#judge',
      temperature: 0,
      repeats: 1,
      mode: 'score',
    };
    renderBar(benchRun({ status: 'done', done: 400, total: 400, judge }));
    expect(screen.queryByRole('button', { name: /^Retry|^Ask the judge/ })).toBeNull();
    cleanup();
    renderBar(benchRun({ status: 'done', done: 400, total: 400, judge }), 7);
    const ask = screen.getByRole('button', { name: 'Ask the judge again (7 verdicts missing)' });
    expect(ask.getAttribute('title')).toMatch(/on the predictions stored; the verdicts read stay/);
    cleanup();
    renderBar(benchRun({ status: 'done', done: 397, failed: 3, total: 400, judge }), 7);
    const retry = screen.getByRole('button', { name: 'Retry 3 failed units' });
    expect(retry.getAttribute('title')).toMatch(/first asked again for its 7 missing verdicts/);
    cleanup();
    // A pairwise judge judges once the run has ended: its pairs are owed, not "asked again".
    renderBar(
      benchRun({
        status: 'done',
        done: 388,
        total: 388,
        sims: ['replay', 'retrieval'],
        judge: { ...judge, mode: 'pairwise' },
      }),
      194,
    );
    expect(
      screen.getByRole('button', { name: 'Judge the pairs (194 without a verdict)' }),
    ).toBeTruthy();
    cleanup();
    // While the server asks the judge (a retry from another tab, a CLI), the count falls and the
    // button cannot start a second asking.
    renderBar(benchRun({ status: 'done', done: 400, total: 400, judge }), 5, true);
    const asking = screen.getByRole('button', { name: 'Asking the judge… (5 verdicts missing)' });
    expect(asking.hasAttribute('disabled')).toBe(true);
    // It can be stopped from here, as `bench cancel` stops it.
    expect(screen.getByRole('button', { name: 'Stop asking' }).hasAttribute('disabled')).toBe(
      false,
    );
  });
});
