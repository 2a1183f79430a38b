import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { RejudgeForm, unscoredNote, type RejudgedQueue } from './rejudge-form';

afterEach(cleanup);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The built-in rule sets, none saved yet: what a fresh install lists. */
const BUILTINS = ['default-terminal', 'default-tool'].map((name) => ({
  name,
  latestVersion: null,
  versions: 0,
  author: 'terrarium',
  message: 'built-in default',
  updatedAt: null,
  builtin: true,
}));

function renderForm(answer: (call: ApiCall) => unknown, queue?: RejudgedQueue) {
  const api = fakeApiClient((call) => {
    if (call.path === 'rulesets.list') return BUILTINS;
    if (call.path === 'rulesets.versions') return [];
    return answer(call);
  });
  renderWithApi(<RejudgeForm queueId="1" queue={queue} onDone={() => undefined} />, api.client);
  return api.calls;
}

/** default-tool's five criteria, the queue's (as a queue created with it copies them). */
const TOOL_CRITERIA = ['format', 'facts', 'consistency', 'realism', 'invented-outcome'];

/** A rule set's criteria as `rulesets.get` gives them, judged (no local rule) unless said. */
function ruleSetView(name: string, version: number | null, ids: string[], ruled: string[] = []) {
  return {
    name,
    version,
    ruleSet: {
      name,
      criteria: [...ids, ...ruled].map((id) => ({
        id,
        text: `${id}?`,
        scale: { min: 1, max: 5 },
        ...(ruled.includes(id) ? { rule: 'content' } : {}),
      })),
    },
  };
}

describe('RejudgeForm', () => {
  it('re-judges with the built-in the select shows, and says when the endpoint is missing', async () => {
    const calls = renderForm((call) =>
      call.path === 'rulesets.get'
        ? ruleSetView('default-terminal', null, TOOL_CRITERIA)
        : call.path === 'labels.rejudge'
          ? { id: 'j1', status: 'running' }
          : {
              id: 'j1',
              queueId: '1',
              judgeVersion: 'default-terminal@v0',
              status: 'failed',
              total: 6,
              done: 0,
              unparsed: 0,
              usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
              error: 'the judge endpoint refused the connection',
            },
    );
    const ruleSet = await screen.findByLabelText('Re-judge rule set');
    await waitFor(() => expect(ruleSet).toHaveProperty('value', 'default-terminal'));
    expect(screen.getByLabelText('Re-judge version').textContent).toBe(
      'built-in (no saved version)',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Re-judge' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'type the judge endpoint first (openai:URL#model)',
    );
    fireEvent.change(screen.getByLabelText('Judge endpoint'), {
      target: { value: 'openai:http://127.0.0.1:9/v1#judge' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Re-judge' }));
    await waitFor(() =>
      expect(calls.find((call) => call.path === 'labels.rejudge')?.input).toEqual({
        queueId: '1',
        judge: 'openai:http://127.0.0.1:9/v1#judge',
        ruleSet: { name: 'default-terminal' },
      }),
    );
    expect((await screen.findByTestId('rejudge-status')).textContent).toBe(
      'default-terminal@v0: failed after 0 of 6 items · judge 0 in / 0 out tokens · $0.00 · the judge endpoint refused the connection',
    );
  });

  it('preselects the rule set the queue took its criteria from, not the first one listed', async () => {
    const calls = renderForm(
      (call) =>
        call.path !== 'rulesets.get'
          ? null
          : isRecord(call.input) && call.input['name'] === 'default-tool'
            ? ruleSetView('default-tool', null, TOOL_CRITERIA)
            : ruleSetView('default-terminal', null, ['format', 'consistency', 'exit-code']),
      {
        ruleSet: { name: 'default-tool', version: 0 },
        criteria: TOOL_CRITERIA.map((id) => ({ id })),
      },
    );
    const ruleSet = await screen.findByLabelText('Re-judge rule set');
    await waitFor(() => expect(ruleSet).toHaveProperty('value', 'default-tool'));
    expect(
      within(ruleSet)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['default-terminal', "default-tool (this queue's criteria)"]);
    await waitFor(() =>
      expect(
        calls.filter((call) => call.path === 'rulesets.get').map((call) => call.input),
      ).toEqual([{ name: 'default-tool' }]),
    );
    // Its judge scores all five: nothing to warn about.
    expect(screen.queryByTestId('rejudge-unscored')).toBeNull();
    // Another set is the user's to pick, and the form says what it would leave out.
    fireEvent.change(ruleSet, { target: { value: 'default-terminal' } });
    expect((await screen.findByTestId('rejudge-unscored')).textContent).toBe(
      "default-terminal built-in judges only format, consistency of this queue's criteria: a re-judge leaves 3 criteria unscored (facts, realism, invented-outcome), since labels and judge scores pair by criterion id. This queue's criteria come from default-tool.",
    );
  });
});

/** A rule set's criteria: judged ones, then ones its rules score. */
function criteriaOf(ids: string[], ruled: string[] = []) {
  return ruleSetView('x', 1, ids, ruled).ruleSet.criteria;
}

describe('unscoredNote', () => {
  const queue: RejudgedQueue = {
    ruleSet: { name: 'default-tool', version: 0 },
    criteria: TOOL_CRITERIA.map((id) => ({ id })),
  };

  it('names the criteria a rule set with fewer would leave unscored, and the queue’s own', () => {
    expect(
      unscoredNote(queue, { name: 'walk-tool', version: 2 }, criteriaOf(['facts', 'tone'])),
    ).toBe(
      "walk-tool v2 judges only facts of this queue's criteria: a re-judge leaves 4 criteria unscored (format, consistency, realism, invented-outcome), since labels and judge scores pair by criterion id. This queue's criteria come from default-tool.",
    );
    // A criterion its rules score is not judged, so it counts as unscored too.
    expect(
      unscoredNote(
        queue,
        { name: 'default-tool', version: 3 },
        criteriaOf(['format', 'facts', 'consistency', 'realism'], ['invented-outcome']),
      ),
    ).toBe(
      "default-tool v3 judges only format, facts, consistency, realism of this queue's criteria: a re-judge leaves 1 criterion unscored (invented-outcome), since labels and judge scores pair by criterion id.",
    );
  });

  it('says when a rule set judges none of them, and nothing when it judges all', () => {
    expect(
      unscoredNote(queue, { name: 'default-terminal', version: null }, criteriaOf(['x'])),
    ).toBe(
      "default-terminal built-in judges none of this queue's criteria (format, facts, consistency, realism, invented-outcome): there is nothing to re-judge with it. This queue's criteria come from default-tool.",
    );
    expect(
      unscoredNote(queue, { name: 'default-tool', version: 1 }, criteriaOf(TOOL_CRITERIA)),
    ).toBe(null);
  });
});
