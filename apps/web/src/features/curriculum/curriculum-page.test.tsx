import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { curriculumRun } from './curriculum.fixture';
import { CurriculumPage } from './curriculum-page';

afterEach(cleanup);

const PLAYING = curriculumRun();
const DONE = curriculumRun({ status: 'done', generationsDone: 4 });

/** The page on run 1, which its own query sees done; the list answers `lists` in turn. */
function renderRun(lists: (typeof PLAYING)[][]) {
  const api = fakeApiClient(({ path }) => {
    if (path === 'curriculum.list') return lists.length > 1 ? lists.shift() : lists[0];
    if (path === 'curriculum.get') {
      return { run: DONE, generations: [], lineages: [], rolloutsDatasetId: null, builtin: false };
    }
    if (path === 'datasets.list') return [];
    throw new Error(`unexpected call ${path}`);
  });
  renderWithApi(<CurriculumPage runId="1" />, api.client);
  return api.calls;
}

const panelText = () => document.querySelector('.curriculum-status')?.textContent;
const options = () =>
  [...screen.getByRole('combobox', { name: 'Run' }).querySelectorAll('option')].map(
    (option) => option.textContent,
  );

describe('CurriculumPage', () => {
  it('gives the shown run one status, in the Run select and the panel alike (walk 52)', async () => {
    // The list was read while the run played (and says so still); the run's own query sees it done.
    renderRun([[PLAYING, curriculumRun({ id: '2', dataset: 'builtin' })]]);
    await waitFor(() =>
      expect(panelText()).toBe('Run #1 (scripted vs retrieval): done, generation 4 of 4 '),
    );
    expect(options()).toEqual([
      '(choose a run)',
      '#1 intercode-bash, scripted vs retrieval: done, 4/4',
      // Runs not shown read as the list has them.
      '#2 builtin, scripted vs retrieval: running, 2/4',
    ]);
  });

  it('reads the list again once the shown run has ended, not at its next poll', async () => {
    const calls = renderRun([[PLAYING], [DONE]]);
    // The list polls every 2 s while a run plays; waitFor gives up after 1 s.
    await waitFor(() =>
      expect(calls.filter((call) => call.path === 'curriculum.list')).toHaveLength(2),
    );
    expect(options()).toEqual([
      '(choose a run)',
      '#1 intercode-bash, scripted vs retrieval: done, 4/4',
    ]);
  });
});
