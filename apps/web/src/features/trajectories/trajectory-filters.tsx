import {
  DOMAINS,
  MAX_SEARCH_CHARS,
  OUTCOME_FILTERS,
  SOURCE_FORMATS,
  type DatasetSummary,
} from '@terrarium/schema';
import { useState } from 'react';
import type { ListQuery } from '../../app/url-state';
import { presentOptions } from './list-filter';
import { useDebouncedEffect } from './use-debounced-effect';

const SEARCH_DEBOUNCE_MS = 300;

interface TrajectoryFiltersProps {
  query: ListQuery;
  onChange(query: ListQuery): void;
  /** The datasets in view, for the values the filters offer; null while they load. */
  datasets: readonly Pick<DatasetSummary, 'domains' | 'formats' | 'outcomes'>[] | null;
}

function parseStepBound(text: string): number | null {
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : null;
}

function pickOption<T extends string>(options: readonly T[], value: string): T | null {
  return options.find((option) => option === value) ?? null;
}

/**
 * What search reads (migration 001's terrarium_search_excerpt): indexing whole multi-KB outputs
 * would slow every import, so long texts are indexed by their head and tail. Its words are the
 * `simple` configuration's: lower-cased, not stemmed (walk 40 saw "flight" miss "flights").
 */
export const SEARCH_SCOPE =
  'Search finds words as written, whatever their case (flight does not find flights), and reads each action and observation whole up to 5,120 characters, and of a longer one its first 4,096 and last 1,024: words in the middle of a long output are not found.';

/** Search box and filters. Edits are kept locally and applied after a pause in typing. */
export function TrajectoryFilters({ query, onChange, datasets }: TrajectoryFiltersProps) {
  const [draft, setDraft] = useState(query);
  // Back/forward or a link can change the query under us: the URL wins.
  const [appliedQuery, setAppliedQuery] = useState(query);
  if (appliedQuery !== query) {
    setAppliedQuery(query);
    setDraft(query);
  }
  useDebouncedEffect(draft, SEARCH_DEBOUNCE_MS, (settled) => {
    if (JSON.stringify(settled) !== JSON.stringify(query)) onChange(settled);
  });

  // Each filter offers what the datasets the other filters leave hold: with Domain = database,
  // Source offers only the formats of datasets with database trajectories (by dataset, so a mixed
  // dataset can still leave a combination empty).
  const { domain: pickedDomain, format: pickedFormat } = draft;
  const ofDomain =
    datasets && datasets.filter((d) => pickedDomain === null || d.domains.includes(pickedDomain));
  const ofFormat =
    datasets && datasets.filter((d) => pickedFormat === null || d.formats.includes(pickedFormat));
  const ofBoth =
    ofDomain && ofDomain.filter((d) => pickedFormat === null || d.formats.includes(pickedFormat));
  const outcomes = presentOptions(
    OUTCOME_FILTERS,
    ofBoth && ofBoth.map((dataset) => dataset.outcomes),
    draft.outcome,
  );
  // Nothing records an outcome: "unknown" would be the only choice and match every trajectory.
  const noOutcomes = outcomes.every((outcome) => outcome === 'unknown') && draft.outcome === null;

  return (
    <div className="filters" role="search">
      <input
        type="search"
        className="search-input"
        aria-label="Search trajectories"
        placeholder='Search actions and observations ("a phrase"; -word leaves out)…'
        title={`"Quoted words" match as a phrase, so search "ls -F" with quotes: unquoted, -F leaves out trajectories with F. ${SEARCH_SCOPE}`}
        maxLength={MAX_SEARCH_CHARS}
        value={draft.q}
        onChange={(event) => setDraft({ ...draft, q: event.target.value })}
      />
      <label>
        Domain
        <select
          aria-label="Domain"
          value={draft.domain ?? ''}
          onChange={(event) =>
            setDraft({ ...draft, domain: pickOption(DOMAINS, event.target.value) })
          }
        >
          <option value="">any</option>
          {presentOptions(
            DOMAINS,
            ofFormat && ofFormat.map((dataset) => dataset.domains),
            draft.domain,
          ).map((domain) => (
            <option key={domain} value={domain}>
              {domain}
            </option>
          ))}
        </select>
      </label>
      <label>
        Source
        <select
          aria-label="Source format"
          value={draft.format ?? ''}
          onChange={(event) =>
            setDraft({ ...draft, format: pickOption(SOURCE_FORMATS, event.target.value) })
          }
        >
          <option value="">any</option>
          {presentOptions(
            SOURCE_FORMATS,
            ofDomain && ofDomain.map((dataset) => dataset.formats),
            draft.format,
          ).map((format) => (
            <option key={format} value={format}>
              {format}
            </option>
          ))}
        </select>
      </label>
      <label title={noOutcomes ? 'No trajectory in view records whether it succeeded' : undefined}>
        Outcome
        <select
          aria-label="Outcome"
          value={draft.outcome ?? ''}
          disabled={noOutcomes}
          onChange={(event) =>
            setDraft({ ...draft, outcome: pickOption(OUTCOME_FILTERS, event.target.value) })
          }
        >
          <option value="">{noOutcomes ? 'none recorded' : 'any'}</option>
          {!noOutcomes &&
            outcomes.map((outcome) => (
              <option key={outcome} value={outcome}>
                {outcome}
              </option>
            ))}
        </select>
      </label>
      <label>
        Steps
        <input
          type="number"
          min={0}
          className="step-bound"
          aria-label="Minimum steps"
          placeholder="min"
          value={draft.minSteps ?? ''}
          onChange={(event) => setDraft({ ...draft, minSteps: parseStepBound(event.target.value) })}
        />
        –
        <input
          type="number"
          min={0}
          className="step-bound"
          aria-label="Maximum steps"
          placeholder="max"
          value={draft.maxSteps ?? ''}
          onChange={(event) => setDraft({ ...draft, maxSteps: parseStepBound(event.target.value) })}
        />
      </label>
      {draft.minSteps !== null && draft.maxSteps !== null && draft.minSteps > draft.maxSteps && (
        <span className="status-error" role="alert" data-testid="step-bounds-crossed">
          The minimum is above the maximum: no trajectory can match.
        </span>
      )}
    </div>
  );
}
