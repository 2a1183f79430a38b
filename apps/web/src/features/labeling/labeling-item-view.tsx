import type { LabelingItem } from '@terrarium/api';
import { actionText } from '@terrarium/fidelity';
import { plural } from '../../app/format';
import { ClosedLoopNote } from '../bench/closed-loop-note';
import { ObservationDiff } from '../compare/observation-diff';
import { ObservationView } from '../observations/observation-view';
import '../compare/compare.css';

/** How many earlier turns are open at first; older ones sit behind a summary line. */
const OPEN_TURNS = 3;

/** The history, the action, and the real against the simulated observation with their diff. */
export function LabelingItemView({ view }: { view: LabelingItem }) {
  const { item, prediction } = view;
  const older = item.history.slice(0, Math.max(0, item.history.length - OPEN_TURNS));
  const recent = item.history.slice(older.length);
  return (
    <div className="labeling-item" data-testid="labeling-item" data-item={item.id}>
      <header className="panel-header">
        <h2 className="mono">{item.task}</h2>
        <span className="muted">
          turn {item.turnIndex + 1} / {item.totalTurns} · item {view.ordinal + 1}
        </span>
      </header>
      {item.context.task !== null && <p className="labeling-task">{item.context.task}</p>}
      <section aria-label="History" className="labeling-history">
        <h3>History ({plural(item.history.length, 'turn')})</h3>
        <ClosedLoopNote mode={view.mode} />
        {older.length > 0 && (
          <details>
            <summary>{plural(older.length, 'earlier turn')}</summary>
            {older.map((turn, index) => (
              <Turn key={index} action={actionText(turn.action)} observation={turn.observation} />
            ))}
          </details>
        )}
        {recent.map((turn, index) => (
          <Turn
            key={older.length + index}
            action={actionText(turn.action)}
            observation={turn.observation}
          />
        ))}
      </section>
      <section aria-label="Action">
        <h3>Action</h3>
        <pre className="code" data-testid="labeling-action">
          {actionText(item.action)}
        </pre>
      </section>
      <div className="labeling-sides">
        <section aria-label="Real observation">
          <h3>Real</h3>
          <ObservationView observation={item.real} />
        </section>
        <section aria-label="Simulated observation">
          <h3>Simulated</h3>
          {prediction.error !== null ? (
            <p className="status status-error">{prediction.error}</p>
          ) : (
            <ObservationView observation={prediction.observation} />
          )}
        </section>
      </div>
      {prediction.observation !== null && (
        <section aria-label="Diff">
          <h3>Diff (real → simulated)</h3>
          <ObservationDiff real={item.real} predicted={prediction.observation} />
        </section>
      )}
    </div>
  );
}

function Turn({
  action,
  observation,
}: {
  action: string;
  observation: LabelingItem['item']['real'];
}) {
  return (
    <div className="labeling-turn">
      <pre className="code labeling-turn-action">{action}</pre>
      <ObservationView observation={observation} />
    </div>
  );
}
