import type { SimulatedStep } from '@terrarium/schema';
import { useState } from 'react';
import { Collapsible } from '../../app/collapsible';
import { formatCount, formatScore } from '../../app/format';
import { ObservationView } from '../observations/observation-view';
import { PlainText } from '../observations/plain-text';
import { formatLatency } from './format-run';
import { ObservationDiff } from './observation-diff';
import { CONTENT_METRIC, metricDescription, metricLabel, orderMetrics } from './summary';

function Scores({ scores }: { scores: SimulatedStep['scores'] }) {
  const ids = orderMetrics(Object.keys(scores)).filter((id) => scores[id] !== null);
  if (ids.length === 0) return null;
  return (
    <dl className="score-list">
      {ids.map((id) => (
        <div key={id} className="score-item" title={metricDescription(id)}>
          <dt>{metricLabel(id)}</dt>
          <dd
            className="mono"
            data-testid={id === CONTENT_METRIC ? 'score-content' : undefined}
            data-metric={id}
          >
            {formatScore(scores[id])}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Provenance({ simulated }: { simulated: SimulatedStep }) {
  const { provenance, usage } = simulated;
  return (
    <div className="sim-facts muted">
      <span className="mono">{provenance.backend}</span>
      {provenance.model !== null && <span className="mono">{provenance.model}</span>}
      {provenance.cache !== null && (
        <span className={`cache cache-${provenance.cache}`} data-testid="sim-cache">
          cache {provenance.cache}
        </span>
      )}
      {simulated.error === null ? (
        <>
          <span>{formatLatency(simulated.latencyMs)}</span>
          <span>
            {formatCount(usage.inputTokens)} in / {formatCount(usage.outputTokens)} out tokens
          </span>
        </>
      ) : (
        // A failed call has no latency or tokens worth showing: nothing came back.
        <span>no prediction</span>
      )}
    </div>
  );
}

/** One simulator's prediction for one transition: where it came from, its scores, its diff. */
export function SimPrediction({ sim, simulated }: { sim: string; simulated: SimulatedStep }) {
  const [view, setView] = useState<'diff' | 'rendered'>('diff');
  const failed = simulated.error !== null;
  return (
    <section className="panel sim-prediction" data-testid="sim-prediction" data-sim={sim}>
      <header className="panel-header">
        <h3 className="mono">{sim}</h3>
        {failed ? null : (
          <div className="segmented spacer-left" role="group" aria-label="Prediction view">
            <button type="button" aria-pressed={view === 'diff'} onClick={() => setView('diff')}>
              Diff
            </button>
            <button
              type="button"
              aria-pressed={view === 'rendered'}
              onClick={() => setView('rendered')}
            >
              Rendered
            </button>
          </div>
        )}
      </header>
      <div className="panel-body">
        <Provenance simulated={simulated} />
        {simulated.error !== null && (
          <p className="status status-error" role="alert">
            {simulated.error}
          </p>
        )}
        <Scores scores={simulated.scores} />
        {/* A failed call predicted nothing: a diff against its empty stand-in would read as an answer. */}
        {failed ? null : view === 'diff' ? (
          <ObservationDiff real={simulated.real} predicted={simulated.predicted} />
        ) : (
          <ObservationView observation={simulated.predicted} />
        )}
        {simulated.reasoning !== null && simulated.reasoning.trim() !== '' && (
          <Collapsible title="Reasoning" className="panel reasoning">
            <PlainText content={simulated.reasoning} className="reasoning-text" />
          </Collapsible>
        )}
      </div>
    </section>
  );
}
