import type { LabelingItem } from '@terrarium/api';
import type { LabelCriterion } from '@terrarium/labels';
import { scoreKey } from '@terrarium/schema';
import type { RefObject } from 'react';
import { formatScore } from '../../app/format';
import { keyOfValue, unkeyedHint } from './label-keys';

export interface LabelDraft {
  scores: Record<string, number | null>;
  comment: string;
  flagged: boolean;
}

function points(criterion: LabelCriterion): number[] {
  return Array.from({ length: criterion.max - criterion.min + 1 }, (_, n) => criterion.min + n);
}

/** A point's tooltip: what the scale says it means, and the key that gives it. */
function pointTitle(criterion: LabelCriterion, value: number): string {
  const meaning = criterion.labels?.[String(value)];
  const key = keyOfValue(criterion, value);
  return [meaning, key === null ? 'no key: click' : `key ${key}`]
    .filter((part) => part !== undefined)
    .join(' · ');
}

/** The scale's named points in order ("1 wrong · 2 partly · 3 right"), or null when none are. */
function pointCaption(criterion: LabelCriterion): string | null {
  const named = points(criterion).flatMap((value) => {
    const meaning = criterion.labels?.[String(value)];
    return meaning === undefined ? [] : [`${value} ${meaning}`];
  });
  return named.length === 0 ? null : named.join(' · ');
}

/**
 * The rubric criteria with their scale as buttons (the digit keys press them), a comment, the
 * flag, and — outside blind mode only, as the server decides — the judge's scores and others'
 * labels.
 */
export function CriteriaForm({
  criteria,
  draft,
  selected,
  reviewing,
  onSelect,
  onChange,
  onSubmit,
  commentRef,
  view,
}: {
  criteria: readonly LabelCriterion[];
  draft: LabelDraft;
  selected: number;
  reviewing: boolean;
  onSelect: (index: number) => void;
  onChange: (draft: LabelDraft) => void;
  onSubmit: () => void;
  commentRef: RefObject<HTMLTextAreaElement | null>;
  view: LabelingItem;
}) {
  return (
    <aside className="panel labeling-criteria" aria-label="Criteria">
      <header className="panel-header">
        <h2>{reviewing ? 'Your label (editing)' : 'Criteria'}</h2>
      </header>
      <ol className="labeling-criterion-list">
        {criteria.map((criterion, index) => (
          <li
            key={criterion.id}
            className={index === selected ? 'labeling-criterion selected' : 'labeling-criterion'}
            data-testid={`criterion-${criterion.id}`}
            data-selected={index === selected}
            data-value={draft.scores[criterion.id] ?? ''}
          >
            <button
              type="button"
              className="labeling-criterion-name"
              onClick={() => onSelect(index)}
            >
              <strong>{criterion.id}</strong>
              {criterion.weight < 0 && <span className="muted"> (pitfall)</span>}
            </button>
            <p className="muted">{criterion.text}</p>
            <div
              className="labeling-scale"
              role="group"
              aria-label={`${criterion.id} score`}
              // One equal column per point: however many points (up to 11), the row fits the panel.
              style={{
                gridTemplateColumns: `repeat(${points(criterion).length}, minmax(0, 1fr))`,
              }}
            >
              {points(criterion).map((value) => (
                <button
                  key={value}
                  type="button"
                  aria-pressed={draft.scores[criterion.id] === value}
                  className={draft.scores[criterion.id] === value ? 'button active' : 'button'}
                  title={pointTitle(criterion, value)}
                  onClick={() =>
                    onChange({ ...draft, scores: { ...draft.scores, [criterion.id]: value } })
                  }
                >
                  {value}
                </button>
              ))}
            </div>
            {pointCaption(criterion) !== null && (
              <p className="labeling-scale-caption" data-testid={`scale-labels-${criterion.id}`}>
                {pointCaption(criterion)}
              </p>
            )}
            {unkeyedHint(criterion) !== null && (
              <p
                className="labeling-scale-caption muted"
                data-testid={`scale-keys-${criterion.id}`}
              >
                {unkeyedHint(criterion)}
              </p>
            )}
          </li>
        ))}
      </ol>
      <label className="labeling-comment">
        Comment (c)
        <textarea
          ref={commentRef}
          value={draft.comment}
          rows={3}
          onChange={(event) => onChange({ ...draft, comment: event.target.value })}
        />
      </label>
      <div className="page-actions">
        <label>
          <input
            type="checkbox"
            checked={draft.flagged}
            onChange={(event) => onChange({ ...draft, flagged: event.target.checked })}
          />{' '}
          Flag (f)
        </label>
        <button
          type="button"
          className="button primary"
          onClick={onSubmit}
          data-testid="submit-label"
        >
          {reviewing ? 'Save edit (Enter)' : 'Submit (Enter)'}
        </button>
      </div>
      {view.scores !== null && view.scores.length > 0 && (
        <section aria-label="Scores" data-testid="labeling-scores">
          <h3>Scores on record</h3>
          <ul className="mono">
            {/* Named as the results JSONL, --score, URLs and the CLI name them (walk 52). */}
            {view.scores.map((score) => (
              <li key={scoreKey(score)}>
                {scoreKey(score)}: {formatScore(score.value)}
              </li>
            ))}
          </ul>
        </section>
      )}
      {view.otherLabels !== null && view.otherLabels.length > 0 && (
        <section aria-label="Other labels" data-testid="labeling-other-labels">
          <h3>Other labels</h3>
          <ul>
            {view.otherLabels.map((label) => (
              <li key={label.labelerName}>
                {label.labelerName}:{' '}
                {Object.entries(label.scores)
                  .map(([id, value]) => `${id} ${value ?? '—'}`)
                  .join(', ')}
              </li>
            ))}
          </ul>
        </section>
      )}
    </aside>
  );
}
