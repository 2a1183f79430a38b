import { parseRuleSetMetric, type CellItem } from '@terrarium/schema';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../app/trpc';
import { ClosedLoopNote } from './closed-loop-note';
import { formatScore, formatScore100 } from '../../app/format';
import { Link } from '../../app/link';
import { formatLatency } from '../compare/format-run';
import { ObservationDiff } from '../compare/observation-diff';
import { ObservationView } from '../observations/observation-view';
import { Breakdown } from '../rule-sets/breakdown';
import { ItemRerun } from './item-rerun';
import { itemTrajectoryName } from './item-trajectory-name';
import { metricDefinition, metricLabel, scoresBySource, SOURCE_LABELS } from './leaderboard';
import { useCompareRoute } from './use-compare-route';
// The diff's colours and the score lists are styled with the Compare view.
import '../compare/compare.css';

function CompareLink({ item, runId }: { item: CellItem; runId: string | undefined }) {
  const target = useCompareRoute(item, runId);
  if (item.origin.dataset === null || item.origin.trajectory === null) {
    return <span className="muted">Imported item: no trajectory to compare.</span>;
  }
  if (target.route !== null) {
    return (
      <Link
        to={target.route}
        className="button"
        title="Run this simulator over the whole trajectory against its dataset (retrieval may answer differently than in the bench; Re-run in bench gives the run's own prediction)"
      >
        Open in Compare
      </Link>
    );
  }
  if (target.error) return <span className="status-error">Compare: {target.error.message}</span>;
  if (target.isPending) return <span className="muted">Finding the trajectory…</span>;
  return <span className="muted">Its trajectory is no longer stored.</span>;
}

/** Every score of the prediction, one list per source so that no two sources blend. */
function ItemScores({ item }: { item: CellItem }) {
  return (
    <div className="item-scores">
      {scoresBySource(item.scores).map((group) => (
        <section key={group.source} className="item-score-group" data-source={group.source}>
          <h3>{SOURCE_LABELS[group.source]}</h3>
          <dl className="score-list">
            {group.scores.map((entry) => (
              <div
                key={entry.metric}
                className="score-item"
                title={
                  metricDefinition({ source: group.source, metric: entry.metric }) ?? undefined
                }
              >
                <dt>{metricLabel({ source: group.source, metric: entry.metric })}</dt>
                <dd className="mono" data-score={`${group.source}:${entry.metric}`}>
                  {formatScore100(entry.value)}
                </dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}

/** Whether the prediction has a score of a saved rule-set version (`rule:NAME@vN`). */
function hasRuleSetScore(item: CellItem): boolean {
  return Object.keys(item.scores).some((key) => {
    if (!key.startsWith('rule:')) return false;
    const version = parseRuleSetMetric(key.slice('rule:'.length));
    return version !== null && version.criterion === null;
  });
}

/**
 * Why each saved rule-set version scored the prediction as it did: per rule its value and weight,
 * as the Rule sets preview shows a draft's (walk 52: the item showed `walk-tool@v1 20.0`, and only
 * the results JSONL said why). Asked for only when the item has such a score.
 */
function RuleSetBreakdowns({ item, runId }: { item: CellItem; runId: string }) {
  const trpc = useTRPC();
  const wanted = hasRuleSetScore(item);
  const breakdowns = useQuery({
    ...trpc.rulesets.itemBreakdowns.queryOptions({
      runId,
      sim: item.sim,
      itemId: item.itemId,
    }),
    enabled: wanted,
  });
  if (!wanted) return null;
  if (breakdowns.error) {
    return (
      <p className="status status-error" data-testid="item-breakdowns-error">
        Rule-set breakdowns: {breakdowns.error.message}
      </p>
    );
  }
  if (breakdowns.data === undefined || breakdowns.data.length === 0) return null;
  return (
    <section className="item-breakdowns" aria-label="Rule-set breakdowns">
      <h3>Rule-set breakdowns</h3>
      <ul className="item-breakdown-list">
        {breakdowns.data.map((entry) => (
          <li key={entry.metric} data-testid="item-breakdown" data-metric={entry.metric}>
            <span className="mono">
              {entry.metric} {formatScore(entry.score)}
            </span>
            {': '}
            <Breakdown breakdown={entry.breakdown} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The run's mode, read from the run page's own query (cached): closed loop is said on the item. */
function RunModeNote({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const run = useQuery(trpc.bench.run.queryOptions({ runId }));
  return run.data === undefined ? null : <ClosedLoopNote mode={run.data.mode} />;
}

/** One prediction behind a cell: the real and predicted observations side by side, and the diff. */
export function ItemDetail({ item, runId }: { item: CellItem; runId?: string }) {
  const source = itemTrajectoryName(item);
  return (
    <article
      className="panel item-detail"
      data-testid="item-detail"
      data-item={item.itemId}
      aria-label="Selected item"
    >
      <header className="panel-header">
        <h3 className="mono">{item.task}</h3>
        <span
          className="mono"
          data-testid="item-trajectory"
          title={source?.detail ?? 'Imported from a bench file: it names no trajectory'}
        >
          {source?.name ?? 'imported item'}
        </span>
        {source?.detail != null && (
          // Runs of one instance share its name; their settings (a SWE-agent config) tell apart.
          <span className="mono muted cell-ellipsis" data-testid="item-trajectory-detail">
            {source.detail}
          </span>
        )}
        <span className="muted">
          <span title="Turns count the trajectory's actions with their observations; steps, as in the replay and Compare, count every message">
            turn {item.turnIndex + 1} / {item.totalTurns}
            {item.origin.stepIndex === null ? '' : ` (step ${item.origin.stepIndex + 1})`}
          </span>{' '}
          · history {item.historyLength} · {formatLatency(item.latencyMs)}
        </span>
        <span className="spacer-left">
          <CompareLink item={item} runId={runId} />
        </span>
      </header>
      <div className="panel-body">
        {runId !== undefined && <RunModeNote runId={runId} />}
        <pre className="code item-action" data-testid="item-action">
          {item.action}
        </pre>
        {item.error !== null && (
          <p className="status status-error" role="alert">
            Simulator error: {item.error}
          </p>
        )}
        <ItemScores item={item} />
        {runId !== undefined && <RuleSetBreakdowns item={item} runId={runId} />}
        <div className="item-sides">
          <section aria-label="Real observation">
            <h3>Real</h3>
            <ObservationView observation={item.real} />
          </section>
          <section aria-label="Predicted observation">
            <h3 className="mono">{item.sim}</h3>
            {item.predicted === null ? (
              <p className="muted">No prediction.</p>
            ) : (
              <ObservationView observation={item.predicted} />
            )}
          </section>
        </div>
        {runId !== undefined && (
          <ItemRerun
            runId={runId}
            itemId={item.itemId}
            sim={item.sim}
            runScore={item.scores['rule:content']}
          />
        )}
        {item.predicted !== null && (
          <section className="item-diff" aria-label="Diff">
            <h3>Diff (real → predicted)</h3>
            <ObservationDiff real={item.real} predicted={item.predicted} />
          </section>
        )}
      </div>
    </article>
  );
}
