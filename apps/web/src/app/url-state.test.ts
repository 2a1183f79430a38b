import { describe, expect, it } from 'vitest';
import { EMPTY_LIST_QUERY, formatRoute, parseRoute, type Route } from './url-state';

function roundTrip(route: Route): Route {
  const url = new URL(formatRoute(route), 'http://127.0.0.1');
  return parseRoute(url.pathname, url.search);
}

describe('url state', () => {
  it('formats a replay deep link with a 1-based step and parses it back to the 0-based index', () => {
    const route: Route = { page: 'replay', datasetId: 'ds 1', trajectoryId: 'a/b?c', step: 2 };
    expect(formatRoute(route)).toBe('/datasets/ds%201/trajectories/a%2Fb%3Fc?step=3');
    expect(roundTrip(route)).toEqual(route);
  });

  it('carries the words a search matched on a replay link, a few short ones at most', () => {
    const route: Route = {
      page: 'replay',
      datasetId: '3',
      trajectoryId: '262',
      step: 11,
      marks: ['Thermostat', 'a&b'],
    };
    expect(formatRoute(route)).toBe(
      '/datasets/3/trajectories/262?step=12&mark=Thermostat&mark=a%26b',
    );
    expect(roundTrip(route)).toEqual(route);
    const many = Array.from({ length: 12 }, (_, n) => `&mark=w${n}`).join('');
    const parsed = parseRoute(
      '/datasets/3/trajectories/262',
      `?step=1${many}&mark=${'x'.repeat(101)}`,
    );
    expect(parsed.page === 'replay' ? parsed.marks : null).toEqual(
      Array.from({ length: 8 }, (_, n) => `w${n}`),
    );
  });

  it('round-trips a filtered trajectory list', () => {
    const route: Route = {
      page: 'trajectories',
      datasetId: 'retail',
      query: {
        q: 'refund & exchange',
        domain: 'tool',
        format: 'tau2-bench',
        outcome: 'failure',
        minSteps: 3,
        maxSteps: 40,
      },
    };
    expect(formatRoute(route)).toBe(
      '/datasets/retail?q=refund+%26+exchange&domain=tool&format=tau2-bench&outcome=failure&minSteps=3&maxSteps=40',
    );
    expect(roundTrip(route)).toEqual(route);
  });

  it('round-trips every other page', () => {
    const routes: Route[] = [
      { page: 'datasets' },
      { page: 'import' },
      { page: 'quarantine', datasetId: 'x' },
      { page: 'trajectories', datasetId: null, query: EMPTY_LIST_QUERY },
      { page: 'curriculum', runId: null },
      { page: 'curriculum', runId: '3' },
    ];
    for (const route of routes) expect(roundTrip(route)).toEqual(route);
    expect(formatRoute({ page: 'curriculum', runId: '3' })).toBe('/curriculum?run=3');
  });

  it('drops filter values it does not know and lands on step 1 for a bad step', () => {
    expect(
      parseRoute('/trajectories', '?domain=moon&outcome=maybe&minSteps=-2&maxSteps=7'),
    ).toEqual({
      page: 'trajectories',
      datasetId: null,
      query: { ...EMPTY_LIST_QUERY, maxSteps: 7 },
    });
    expect(parseRoute('/datasets/d/trajectories/t', '?step=zero')).toEqual({
      page: 'replay',
      datasetId: 'd',
      trajectoryId: 't',
      step: 0,
    });
  });

  it("round-trips a bench run drilled into a cell and an item, the run's Overall implicit", () => {
    const route: Route = {
      page: 'bench-run',
      runId: 'run 7',
      score: null,
      cell: { sim: 'openai:http://127.0.0.1:8000/v1#m', task: 'tau2-bench/retail' },
      item: 'abc',
    };
    expect(formatRoute(route)).toBe(
      '/bench-runs/run%207?sim=openai%3Ahttp%3A%2F%2F127.0.0.1%3A8000%2Fv1%23m&task=tau2-bench%2Fretail&item=abc',
    );
    expect(roundTrip(route)).toEqual(route);
    const judged: Route = {
      page: 'bench-run',
      runId: 'r',
      score: { source: 'judge', metric: 'factuality' },
      cell: null,
      item: null,
    };
    expect(formatRoute(judged)).toBe('/bench-runs/r?score=judge%3Afactuality');
    expect(roundTrip(judged)).toEqual(judged);
    // Chosen, the content score stays in the link: a judged run's Overall is the judge's.
    const content: Route = { ...judged, score: { source: 'rule', metric: 'content' } };
    expect(formatRoute(content)).toBe('/bench-runs/r?score=rule%3Acontent');
    expect(roundTrip(content)).toEqual(content);
  });

  it('round-trips the benches list and a run comparison with and without the other run', () => {
    const routes: Route[] = [
      { page: 'benches' },
      {
        page: 'bench-compare',
        runId: 'a',
        otherRunId: 'b',
        score: { source: 'rule', metric: 'exact-match' },
      },
      { page: 'bench-compare', runId: 'a', otherRunId: null, score: null },
    ];
    for (const route of routes) expect(roundTrip(route)).toEqual(route);
    expect(formatRoute(routes[1] ?? { page: 'benches' })).toBe(
      '/bench-runs/a/compare?with=b&score=rule%3Aexact-match',
    );
  });

  it("falls back to the run's Overall for a malformed score and ignores an item without a cell", () => {
    for (const score of ['robot:exact', 'rule:', 'content', '']) {
      expect(parseRoute('/bench-runs/r', `?score=${score}&item=x`)).toEqual({
        page: 'bench-run',
        runId: 'r',
        score: null,
        cell: null,
        item: null,
      });
    }
    expect(
      parseRoute('/bench-runs/r', '?score=human:helpfulness:v2&sim=replay&task=macro'),
    ).toEqual({
      page: 'bench-run',
      runId: 'r',
      score: { source: 'human', metric: 'helpfulness:v2' },
      cell: { sim: 'replay', task: 'macro' },
      item: null,
    });
    expect(parseRoute('/bench-runs/r/elsewhere', '')).toEqual({
      page: 'not-found',
      path: '/bench-runs/r/elsewhere',
    });
  });

  it('names unknown and malformed paths as not found', () => {
    expect(parseRoute('/datasets/d/elsewhere', '')).toEqual({
      page: 'not-found',
      path: '/datasets/d/elsewhere',
    });
    expect(parseRoute('/datasets/%E0%A4%A', '')).toEqual({
      page: 'not-found',
      path: '/datasets/%E0%A4%A',
    });
  });
});
