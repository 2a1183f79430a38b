import type { TrajectoryFilter } from '@terrarium/schema';
import type { ListQuery } from '../../app/url-state';

/** The API filter for what the URL asks; empty fields are left out rather than sent as empty. */
export function toTrajectoryFilter(datasetId: string | null, query: ListQuery): TrajectoryFilter {
  const filter: TrajectoryFilter = {};
  if (datasetId !== null) filter.datasetId = datasetId;
  const search = query.q.trim();
  if (search !== '') filter.search = search;
  if (query.domain) filter.domain = query.domain;
  if (query.format) filter.sourceFormat = query.format;
  if (query.outcome) filter.outcome = query.outcome;
  if (query.minSteps !== null) filter.minSteps = query.minSteps;
  if (query.maxSteps !== null) filter.maxSteps = query.maxSteps;
  return filter;
}
