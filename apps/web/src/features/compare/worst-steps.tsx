import { formatScore } from '../../app/format';
import type { WorstStep } from './summary';

/** The lowest content scores below 1; a click jumps to the step. */
export function WorstSteps({
  worst,
  scored,
  onSelect,
}: {
  worst: readonly WorstStep[];
  /** Predictions with a content score: 0 when every prediction failed or none was scored. */
  scored: number;
  onSelect(step: number): void;
}) {
  return (
    <section className="panel worst-steps" data-testid="worst-steps">
      <header className="panel-header">
        <h3>Worst steps</h3>
        <span className="muted">by content score</span>
      </header>
      {scored === 0 && (
        <p className="muted panel-body">No step was scored: no prediction came back.</p>
      )}
      {scored > 0 && worst.length === 0 && (
        <p className="muted panel-body">Every scored step scored 100.</p>
      )}
      <ol className="panel-body worst-list">
        {worst.map((entry) => (
          <li key={`${entry.sim} ${entry.step}`}>
            <button type="button" className="link-button" onClick={() => onSelect(entry.step)}>
              Step {entry.step + 1}
            </button>{' '}
            <span className="mono">{formatScore(entry.content)}</span>{' '}
            <span className="muted mono">{entry.sim}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
