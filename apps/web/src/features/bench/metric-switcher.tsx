import {
  SCORE_SOURCES,
  scoreKey,
  type LeaderboardCell,
  type ScoreSelector,
} from '@terrarium/schema';
import { metricDefinition, metricGroups, metricLabel, SOURCE_LABELS } from './leaderboard';

/**
 * The scores present in a run, one option group per source: a rule metric and a judge dimension
 * are never in one list, let alone one average.
 */
export function MetricSwitcher({
  cells,
  score,
  onChange,
}: {
  cells: readonly Pick<LeaderboardCell, 'source' | 'metric'>[];
  score: ScoreSelector;
  onChange(score: ScoreSelector): void;
}) {
  const groups = metricGroups(cells);
  const present = groups.some(
    (group) => group.source === score.source && group.metrics.includes(score.metric),
  );
  return (
    <label className="field metric-switcher" title={metricDefinition(score) ?? undefined}>
      Score{' '}
      <select
        aria-label="Score"
        data-testid="metric-switcher"
        value={scoreKey(score)}
        onChange={(event) => {
          const value = event.target.value;
          const colon = value.indexOf(':');
          const source = SCORE_SOURCES.find((candidate) => candidate === value.slice(0, colon));
          if (source !== undefined) onChange({ source, metric: value.slice(colon + 1) });
        }}
      >
        {!present && (
          <option value={scoreKey(score)}>
            {SOURCE_LABELS[score.source]}: {metricLabel(score)} (no scores)
          </option>
        )}
        {groups.map((group) => (
          <optgroup key={group.source} label={SOURCE_LABELS[group.source]}>
            {group.metrics.map((metric) => (
              <option
                key={metric}
                value={scoreKey({ source: group.source, metric })}
                title={metricDefinition({ source: group.source, metric }) ?? undefined}
              >
                {metricLabel({ source: group.source, metric })}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
