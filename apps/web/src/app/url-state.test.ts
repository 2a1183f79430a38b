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
    ];
    for (const route of routes) expect(roundTrip(route)).toEqual(route);
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
