import type { AppRouter } from '@terrarium/api';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { PreviewResult, PreviewRow } from './preview-query';

type PreviewOk = Extract<PreviewResult, { ok: true }>;
type ItemReward = PreviewRow['draft'];

/** Builders of what `rulesets.preview` returns; tests override what they look at. */
export function itemReward(score: number, overrides: Partial<ItemReward> = {}): ItemReward {
  return {
    score,
    breakdown: [{ id: 'content', kind: 'rule', score, weight: 1 }],
    ...overrides,
  };
}

export function previewRow(overrides: Partial<PreviewRow> = {}): PreviewRow {
  return {
    itemId: '000bdf3628a1c2e4',
    task: 'intercode/bash',
    domain: 'terminal',
    draft: itemReward(1),
    saved: null,
    delta: null,
    ...overrides,
  };
}

export function previewResult(
  items: PreviewRow[],
  overrides: Partial<Omit<PreviewOk, 'ok' | 'items'>> = {},
): PreviewOk {
  return {
    ok: true,
    ruleSet: { name: 'my-terminal', savedVersion: null },
    sim: 'retrieval',
    items,
    summary: { items: items.length, meanDraft: null, meanSaved: null, changed: 0 },
    ...overrides,
  };
}

export interface ApiCall {
  path: string;
  input: unknown;
}

/**
 * A tRPC client whose network is `answer`: it gets each call's procedure path and input (as the
 * server would parse them from the URL or body) and returns the data, which tests build with the
 * procedures' own output types. The web tests have no server to talk to.
 */
export function fakeApiClient(answer: (call: ApiCall) => unknown) {
  const calls: ApiCall[] = [];
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: 'http://terrarium.test/trpc',
        fetch: async (request, init) => {
          const url = new URL(
            typeof request === 'string' || request instanceof URL ? request : request.url,
          );
          const query = url.searchParams.get('input');
          const body = typeof init?.body === 'string' ? init.body : null;
          const text = body ?? query;
          const call = {
            path: url.pathname.replace(/^\/trpc\//, ''),
            input: text === null ? undefined : JSON.parse(text),
          };
          calls.push(call);
          const data = answer(call);
          return { ok: true, json: async () => ({ result: { data } }) };
        },
      }),
    ],
  });
  return { client, calls };
}
