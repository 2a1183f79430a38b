import { formatScore } from '../../app/format';
import { actionLabel } from './format-run';
import { CONTENT_METRIC, type ComparedStep } from './summary';

/**
 * Scrolls the table's own box (never the page) so that the selected row is in sight; being a
 * stable function, React calls it only when another row becomes the selected one.
 */
function revealRow(row: HTMLTableRowElement | null): void {
  const box = row?.closest('.compare-steps');
  if (!row || !(box instanceof HTMLElement)) return;
  const rowBox = row.getBoundingClientRect();
  const viewBox = box.getBoundingClientRect();
  if (rowBox.top < viewBox.top) box.scrollTop -= viewBox.top - rowBox.top;
  else if (rowBox.bottom > viewBox.bottom) box.scrollTop += rowBox.bottom - viewBox.bottom;
}

/** Every compared transition as a row, aligned by step, with each simulator's content score. */
export function StepTable({
  rows,
  sims,
  current,
  onSelect,
}: {
  rows: readonly ComparedStep[];
  sims: readonly string[];
  current: number | null;
  onSelect(step: number): void;
}) {
  return (
    <div className="table-scroll compare-steps">
      <table className="data-table" aria-label="Transitions">
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            {sims.map((sim) => (
              <th key={sim} scope="col" className="mono" title={`content score of ${sim}`}>
                {sim}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const selected = row.step === current;
            return (
              <tr
                key={row.step}
                ref={selected ? revealRow : undefined}
                role="row"
                data-testid="compare-step"
                data-step={row.step + 1}
                aria-selected={selected}
                className={selected ? 'row-selected' : undefined}
                onClick={() => onSelect(row.step)}
              >
                <td>{row.step + 1}</td>
                <td>{row.base.actor}</td>
                <td className="mono truncate">{actionLabel(row.base.action)}</td>
                {sims.map((sim) => {
                  const simulated = row.bySim.get(sim);
                  return (
                    <td key={sim} className="mono" data-sim={sim}>
                      {simulated?.error != null
                        ? 'error'
                        : formatScore(simulated?.scores[CONTENT_METRIC])}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
