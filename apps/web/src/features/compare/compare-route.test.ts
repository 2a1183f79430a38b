import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute, type Route } from '../../app/url-state';

function roundTrip(route: Route): Route {
  const url = new URL(formatRoute(route), 'http://127.0.0.1');
  return parseRoute(url.pathname, url.search);
}

describe('compare route', () => {
  it('formats simulators and a 1-based step, and parses them back', () => {
    const route: Route = {
      page: 'compare',
      datasetId: 'retail',
      trajectoryId: 'traj 7',
      sims: ['replay', 'retrieval'],
      step: 4,
    };
    expect(formatRoute(route)).toBe(
      '/datasets/retail/trajectories/traj%207/compare?sims=replay,retrieval&step=5',
    );
    expect(roundTrip(route)).toEqual(route);
  });

  it('keeps an endpoint spec with its URL and model intact', () => {
    const route: Route = {
      page: 'compare',
      datasetId: 'd',
      trajectoryId: 't',
      sims: ['openai:http://127.0.0.1:8000/v1#qwen-0.5b', 'retrieval'],
      step: 0,
    };
    expect(formatRoute(route)).toBe(
      '/datasets/d/trajectories/t/compare?sims=openai%3Ahttp%3A%2F%2F127.0.0.1%3A8000%2Fv1%23qwen-0.5b,retrieval&step=1',
    );
    expect(roundTrip(route)).toEqual(route);
  });

  it('carries the bench run and item it was opened from', () => {
    const route: Route = {
      page: 'compare',
      datasetId: '1',
      trajectoryId: '12',
      sims: ['retrieval'],
      step: 2,
      bench: { runId: 'run 1', itemId: '01d2261dfe240919ecad5a1614bc' },
    };
    expect(formatRoute(route)).toBe(
      '/datasets/1/trajectories/12/compare?sims=retrieval&step=3&bench=run%201&item=01d2261dfe240919ecad5a1614bc',
    );
    expect(roundTrip(route)).toEqual(route);
    // Half a reference is no reference: Compare then runs over the dataset only.
    expect(parseRoute('/datasets/1/trajectories/12/compare', '?bench=r')).not.toHaveProperty(
      'bench',
    );
  });

  it('drops empty and repeated simulators and lands on the first step without one', () => {
    expect(parseRoute('/datasets/d/trajectories/t/compare', '?sims=replay,,replay')).toEqual({
      page: 'compare',
      datasetId: 'd',
      trajectoryId: 't',
      sims: ['replay'],
      step: 0,
    });
    expect(
      roundTrip({ page: 'compare', datasetId: 'd', trajectoryId: 't', sims: [], step: 2 }),
    ).toEqual({
      page: 'compare',
      datasetId: 'd',
      trajectoryId: 't',
      sims: [],
      step: 2,
    });
  });

  it('routes the models page', () => {
    expect(formatRoute({ page: 'models' })).toBe('/models');
    expect(parseRoute('/models', '')).toEqual({ page: 'models' });
    expect(parseRoute('/datasets/d/trajectories/t/compare/x', '')).toEqual({
      page: 'not-found',
      path: '/datasets/d/trajectories/t/compare/x',
    });
  });
});
