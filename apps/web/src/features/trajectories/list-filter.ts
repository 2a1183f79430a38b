import { MAX_SEARCH_CHARS, type TrajectoryFilter } from '@terrarium/schema';
import type { ListQuery } from '../../app/url-state';

/** The API filter for what the URL asks; empty fields are left out rather than sent as empty. */
export function toTrajectoryFilter(datasetId: string | null, query: ListQuery): TrajectoryFilter {
  const filter: TrajectoryFilter = {};
  if (datasetId !== null) filter.datasetId = datasetId;
  // A link may carry a longer search than the box lets one type: its start is what is searched.
  const search = query.q
    .trim()
    .slice(0, MAX_SEARCH_CHARS)
    // Not half a character: a cut between the two halves of an emoji leaves the first out.
    .replace(/[\ud800-\udbff]$/, '')
    .trim();
  if (search !== '') filter.search = search;
  if (query.domain) filter.domain = query.domain;
  if (query.format) filter.sourceFormat = query.format;
  if (query.outcome) filter.outcome = query.outcome;
  if (query.minSteps !== null) filter.minSteps = query.minSteps;
  if (query.maxSteps !== null) filter.maxSteps = query.maxSteps;
  return filter;
}

/**
 * The values a filter offers: those the datasets in view hold (one dataset, or all of them), in the
 * canonical order, plus the one selected (a link may name a value that is no longer there). Until
 * the datasets are known, everything is offered.
 */
export function presentOptions<T extends string>(
  all: readonly T[],
  present: readonly (readonly T[])[] | null,
  selected: T | null,
): T[] {
  if (present === null) return [...all];
  const held = new Set(present.flat());
  return all.filter((value) => held.has(value) || value === selected);
}
