import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { ScoreSelector } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchCell } from '../../app/url-state';
import { leaderboardCell } from './bench.fixture';
import { LeaderboardTable } from './leaderboard-table';
import { MetricSwitcher } from './metric-switcher';

afterEach(cleanup);

const cells = [
  leaderboardCell({ sim: 'replay', task: 'overall', mean: 100, ciLow: 100, ciHigh: 100, n: 120 }),
  leaderboardCell({ sim: 'replay', task: 'macro', mean: 100, ciLow: null, ciHigh: null, n: 120 }),
  leaderboardCell({ sim: 'replay', task: 'tau2-bench/retail', mean: 100, n: 120 }),
  leaderboardCell({
    sim: 'retrieval',
    task: 'overall',
    mean: 31.25,
    ciLow: 26.5,
    ciHigh: 36.1,
    n: 118,
    missing: 2,
  }),
  leaderboardCell({ sim: 'retrieval', task: 'tau2-bench/retail', mean: 31.25, n: 118 }),
  leaderboardCell({
    sim: 'retrieval',
    task: 'overall',
    source: 'judge',
    metric: 'content',
    mean: 5,
  }),
  leaderboardCell({ sim: 'retrieval', task: 'overall', metric: 'exact-match', mean: 0 }),
];

describe('LeaderboardTable', () => {
  it('shows mean, half interval, n and missing per cell, overall and macro before tasks', () => {
    render(
      <LeaderboardTable
        cells={cells}
        score={{ source: 'rule', metric: 'content' }}
        sims={['replay', 'retrieval']}
        selected={null}
        onSelect={() => undefined}
      />,
    );
    const table = screen.getByTestId('leaderboard');
    expect([...table.querySelectorAll('thead th')].map((th) => th.textContent)).toEqual([
      'Simulator',
      'Overall',
      'Macro',
      'tau2-bench/retail',
    ]);
    const retrieval = within(table).getByRole('button', { name: /^retrieval on overall/ });
    expect(retrieval.getAttribute('aria-label')).toBe(
      'retrieval on overall: 31.3, 95% interval 26.5 to 36.1, 118 items, 2 missing',
    );
    expect(within(retrieval).getByTestId('cell-mean').textContent).toBe('31.3');
    expect(retrieval.textContent).toBe('31.3±4.8n=118 · 2 missing');
    // The ± is half the width; the bounds themselves on hover.
    expect(retrieval.getAttribute('title')).toBe('95% interval 26.5 to 36.1');
    // Replay is labelled as the oracle it is, with the reason on hover; retrieval is not.
    const oracle = within(table).getByTestId('oracle-tag');
    expect([oracle.textContent, oracle.closest('tr')?.getAttribute('data-sim')]).toEqual([
      'oracle',
      'replay',
    ]);
    expect(oracle.getAttribute('title')).toMatch(/^Oracle: replay answers with the recorded/);
    expect(within(table).getAllByTestId('oracle-tag')).toHaveLength(1);
    expect(within(table).queryByTestId('trained-tag')).toBeNull();
    const macro = table.querySelector('[data-sim="replay"][data-task="macro"]');
    expect(macro?.textContent).toBe('100.0n=120');
    // The judge's `content` score is another source: it is not in this table.
    expect(table.textContent).not.toContain('5.0');
    expect(table.querySelector('tr[data-sim="retrieval"] td[data-task="macro"]')?.textContent).toBe(
      '—',
    );
  });

  it('reports the clicked cell and marks the selected one', () => {
    const clicked: BenchCell[] = [];
    render(
      <LeaderboardTable
        cells={cells}
        score={{ source: 'rule', metric: 'content' }}
        sims={['replay', 'retrieval']}
        selected={{ sim: 'replay', task: 'overall' }}
        onSelect={(cell) => clicked.push(cell)}
      />,
    );
    const pressed = screen
      .getAllByTestId('leaderboard-cell')
      .filter((button) => button.getAttribute('aria-pressed') === 'true');
    expect(pressed.map((button) => button.dataset['task'])).toEqual(['overall']);
    fireEvent.click(screen.getByRole('button', { name: /^retrieval on tau2-bench\/retail/ }));
    expect(clicked).toEqual([{ sim: 'retrieval', task: 'tau2-bench/retail' }]);
  });

  it('says so when the score has no cells', () => {
    render(
      <LeaderboardTable
        cells={cells}
        score={{ source: 'human', metric: 'helpfulness' }}
        sims={['replay']}
        selected={null}
        onSelect={() => undefined}
      />,
    );
    expect(screen.getByText('No human scores for helpfulness yet.')).toBeTruthy();
  });

  it('says per simulator how many predictions failed, and names one that has nothing scored', () => {
    const down = 'openai:http://127.0.0.1:9/v1#down-model';
    const refused =
      'request to http://127.0.0.1:9/v1/chat/completions failed: nothing accepted the connection';
    render(
      <LeaderboardTable
        cells={cells}
        score={{ source: 'rule', metric: 'content' }}
        sims={['retrieval', down]}
        selected={null}
        onSelect={() => undefined}
        failures={[
          { sim: down, failed: 194, example: refused },
          { sim: 'retrieval', failed: 1, example: 'no neighbour for this tool' },
        ]}
      />,
    );
    // The endpoint that never answered has no row of cells, so the note is where it shows.
    expect(screen.getByTestId('leaderboard').querySelector(`tr[data-sim="${down}"]`)).toBeNull();
    expect(
      [...screen.getByTestId('leaderboard-failures').querySelectorAll('li')].map(
        (li) => li.textContent,
      ),
    ).toEqual([
      `${down}: 194 predictions failed, left out of every mean (none of its predictions is scored). First error: ${refused}`,
      'retrieval: 1 prediction failed, left out of every mean (misses: it answers only from the recordings, so a retry finds them missing again). First error: no neighbour for this tool',
    ]);
  });

  it('says when the judge gave no verdict, though no prediction failed', () => {
    render(
      <LeaderboardTable
        cells={cells}
        score={{ source: 'rule', metric: 'content' }}
        sims={['retrieval']}
        selected={null}
        onSelect={() => undefined}
        judgeGaps={[
          {
            sim: 'retrieval',
            metric: 'overall',
            unreadable: 255,
            asked: 255,
            example: 'no JSON object with scores found',
          },
        ]}
      />,
    );
    expect(screen.getByTestId('leaderboard-failures').textContent).toBe(
      'retrieval: the judge gave no verdict on 255 of 255 items (judge:overall), whose judge scores are missing. First error: no JSON object with scores found',
    );
  });
  it('says under a pairwise score what the judge answered by side, as a warning when it prefers one', () => {
    const pairCells = [
      leaderboardCell({
        sim: 'replay',
        task: 'overall',
        source: 'judge',
        metric: 'pairwise:retrieval',
        mean: 50,
      }),
      leaderboardCell({
        sim: 'retrieval',
        task: 'overall',
        source: 'judge',
        metric: 'pairwise:replay',
        mean: 50,
      }),
    ];
    const sides = {
      mode: 'pairwise' as const,
      subject: 'replay',
      judgings: 24,
      subjectAsA: 12,
      a: 24,
      b: 0,
      tie: 0,
      unparsed: 0,
    };
    const table = (score: ScoreSelector) => (
      <LeaderboardTable
        cells={pairCells}
        score={score}
        sims={['replay', 'retrieval']}
        selected={null}
        onSelect={() => undefined}
        judgeSides={sides}
      />
    );
    const { rerender } = render(table({ source: 'judge', metric: 'pairwise:retrieval' }));
    const note = screen.getByTestId('judge-sides');
    expect(note.className).toBe('note');
    expect(note.textContent).toBe(
      'The pairwise judge answered A in 24 of 24 judgings, B in 0, a tie in 0; replay was response A in 12 of them. Each simulator held each side about as often, so a judge that reads the responses answers A about as often as B: this split (sign test p < 0.001) says it prefers response A whatever it holds, and its win shares say little about the simulators.',
    );
    // Beside another score, the judge's sides are not what the table shows.
    rerender(table({ source: 'rule', metric: 'content' }));
    expect(screen.queryByTestId('judge-sides')).toBeNull();
  });
});

describe('MetricSwitcher', () => {
  it('offers each source’s metrics in its own group and reports the choice', () => {
    const chosen: ScoreSelector[] = [];
    render(
      <MetricSwitcher
        cells={cells}
        score={{ source: 'rule', metric: 'content' }}
        onChange={(score) => chosen.push(score)}
      />,
    );
    const select = screen.getByRole('combobox', { name: 'Score' });
    const groups = [...select.querySelectorAll('optgroup')].map((group) => [
      group.getAttribute('label'),
      [...group.querySelectorAll('option')].map((option) => option.textContent),
    ]);
    expect(groups).toEqual([
      ['Rule metrics', ['Content', 'Exact match']],
      ['Judge', ['Content']],
    ]);
    fireEvent.change(select, { target: { value: 'judge:content' } });
    expect(chosen).toEqual([{ source: 'judge', metric: 'content' }]);
  });

  it('keeps a linked score that the run lacks visible as such', () => {
    render(
      <MetricSwitcher
        cells={cells}
        score={{ source: 'judge', metric: 'realism' }}
        onChange={() => undefined}
      />,
    );
    const select = screen.getByRole('combobox', { name: 'Score' });
    expect(select.querySelector('option')?.textContent).toBe('Judge: Realism (no scores)');
  });

  it('defines every metric in one line on hover: the caption and each option', () => {
    render(
      <>
        <LeaderboardTable
          cells={cells}
          score={{ source: 'rule', metric: 'exact-match' }}
          sims={['retrieval']}
          selected={null}
          onSelect={() => undefined}
        />
        <MetricSwitcher
          cells={cells}
          score={{ source: 'rule', metric: 'content' }}
          onChange={() => undefined}
        />
      </>,
    );
    expect(screen.getByTestId('metric-definition').getAttribute('title')).toBe(
      'Full marks when the prediction equals the real observation byte for byte, else none.',
    );
    const titles = [
      ...screen.getByRole('combobox', { name: 'Score' }).querySelectorAll('option'),
    ].map((option) => [option.textContent, option.getAttribute('title')]);
    expect(titles).toEqual([
      [
        'Content',
        'Content-class score: deterministic content exact, live data close, the rest plausible.',
      ],
      [
        'Exact match',
        'Full marks when the prediction equals the real observation byte for byte, else none.',
      ],
      // A judge score named like no judge dimension has no definition to show.
      ['Content', null],
    ]);
  });
});

describe('LeaderboardTable while the run goes on', () => {
  it('labels the means of what is scored so far as partial, as of its last refresh', () => {
    render(
      <LeaderboardTable
        cells={cells}
        score={{ source: 'rule', metric: 'content' }}
        sims={['replay', 'retrieval']}
        selected={null}
        onSelect={() => undefined}
        partial
      />,
    );
    expect(screen.getByTestId('leaderboard-partial').textContent).toBe(
      "Partial results as of the table's last refresh: means of the units scored by then, each cell's n counting them (the progress bar counts live). 95% intervals once the run ends.",
    );
    expect(screen.getByTestId('leaderboard').getAttribute('data-partial')).toBe('true');
  });

  it('says none of the units recorded has this score yet, not that none exist', () => {
    render(
      <LeaderboardTable
        cells={cells}
        score={{ source: 'judge', metric: 'overall' }}
        sims={['replay', 'retrieval']}
        selected={null}
        onSelect={() => undefined}
        partial
      />,
    );
    expect(screen.getByTestId('leaderboard-partial').textContent).toBe(
      "No judge scores for overall among the units recorded by the table's last refresh (the progress bar counts live).",
    );
  });
});

describe('LeaderboardTable just after the run ends', () => {
  it('says the means are final and the intervals being computed, cell by cell too', () => {
    const means = cells.map((cell) => ({ ...cell, ciLow: null, ciHigh: null }));
    render(
      <LeaderboardTable
        cells={means}
        score={{ source: 'rule', metric: 'content' }}
        sims={['replay', 'retrieval']}
        selected={null}
        onSelect={() => undefined}
        computing
      />,
    );
    expect(screen.getByTestId('leaderboard-computing').textContent).toBe(
      'The run has ended and these means are final; their 95% intervals are being computed.',
    );
    const overall = screen
      .getAllByTestId('leaderboard-cell')
      .find((cell) => cell.dataset['sim'] === 'retrieval' && cell.dataset['task'] === 'overall');
    expect(overall?.getAttribute('aria-label')).toBe(
      'retrieval on overall: 31.3, interval being computed, 118 items, 2 missing',
    );
  });
});
