import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { RejudgeForm } from './rejudge-form';

afterEach(cleanup);

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

function renderForm(answer: (call: ApiCall) => unknown) {
  const api = fakeApiClient((call) => {
    if (call.path === 'rulesets.list') return BUILTINS;
    if (call.path === 'rulesets.versions') return [];
    return answer(call);
  });
  renderWithApi(<RejudgeForm queueId="1" onDone={() => undefined} />, api.client);
  return api.calls;
}

describe('RejudgeForm', () => {
  it('re-judges with the built-in the select shows, and says when the endpoint is missing', async () => {
    const calls = renderForm((call) =>
      call.path === 'labels.rejudge'
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
});
