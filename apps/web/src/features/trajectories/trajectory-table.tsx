import type { TrajectoryFilter, TrajectorySummary } from '@terrarium/schema';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { STEPS_TITLE, TRANSITIONS_TITLE } from '../../app/count-titles';
import { formatCount, formatReward, outcomeLabel } from '../../app/format';
import { Link } from '../../app/link';
import { navigate } from '../../app/router';
import type { Route } from '../../app/url-state';
import { QueryStatus } from '../../app/query-status';
import { SearchSnippet } from './search-snippet';
import { taskHeadline, trajectoryName } from './trajectory-name';
import { usePagedTrajectories } from './use-paged-trajectories';

const ROW_HEIGHT = 30;

/** The replay, at the step a search matched when the list is a search's, the words it matched marked. */
export function replayRoute(row: TrajectorySummary): Route {
  const step = row.match?.step ?? 0;
  const route: Route = { page: 'replay', datasetId: row.datasetId, trajectoryId: row.id, step };
  if (row.match === undefined || row.match.step === null) return route;
  const { text, highlights } = row.match;
  const marks = [...new Set(highlights.map(([start, end]) => text.slice(start, end)))].filter(
    (mark) => mark.trim() !== '',
  );
  return marks.length === 0 ? route : { ...route, marks };
}

/** Dataset names by id, given when the list spans datasets ("All trajectories"). */
export type DatasetNames = ReadonlyMap<string, string>;

function TrajectoryRow({
  row,
  index,
  datasetNames,
}: {
  row: TrajectorySummary;
  index: number;
  datasetNames: DatasetNames | null;
}) {
  const outcome = outcomeLabel(row.outcome);
  const { name, detail } = trajectoryName(row);
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className="grid-row grid-row-link"
      data-testid="trajectory-row"
      onClick={(event) => {
        // The id cell is a real link; clicks elsewhere on the row open the same place.
        if (event.target instanceof Element && event.target.closest('a')) return;
        navigate(replayRoute(row));
      }}
    >
      <span role="cell" className="mono cell-id" title={row.externalId}>
        <Link to={replayRoute(row)}>
          <span data-testid="trajectory-name">{name}</span>
        </Link>
        {detail !== null && (
          <span className="muted cell-id-detail" data-testid="trajectory-detail">
            {detail}
          </span>
        )}
      </span>
      {datasetNames !== null && (
        <span role="cell" className="cell-ellipsis" data-testid="trajectory-dataset">
          {datasetNames.get(row.datasetId) ?? row.datasetId}
        </span>
      )}
      <span role="cell" className="cell-ellipsis">
        {row.sourceBenchmark ?? row.sourceFormat}
      </span>
      <span role="cell">{row.domain}</span>
      <span
        role="cell"
        className="cell-ellipsis"
        title={row.match === undefined ? (row.task ?? undefined) : row.match.text}
      >
        {row.match === undefined ? (
          (taskHeadline(row.task) ?? '—')
        ) : (
          <SearchSnippet match={row.match} />
        )}
      </span>
      <span role="cell" className="cell-ellipsis muted">
        {row.agentModel ?? '—'}
      </span>
      <span role="cell" className="num">
        {formatCount(row.stepCount)}
      </span>
      <span role="cell" className="num">
        {formatCount(row.transitionCount)}
      </span>
      <span role="cell" className={`outcome outcome-${outcome}`}>
        {outcome}
        {row.outcome.reward !== null && (
          <span className="muted"> · {formatReward(row.outcome.reward)}</span>
        )}
      </span>
    </div>
  );
}

/**
 * Only the rows in view (plus overscan) exist in the DOM; their pages are fetched on demand. With
 * `datasetNames` (a list across datasets) each row says which dataset it is in.
 */
export function TrajectoryTable({
  total,
  filter,
  datasetNames = null,
}: {
  total: number;
  filter: TrajectoryFilter;
  datasetNames?: DatasetNames | null;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
  });
  const items = virtualizer.getVirtualItems();
  const paged = usePagedTrajectories(filter, items[0]?.index ?? 0, items.at(-1)?.index ?? -1);
  return (
    <>
      <QueryStatus label="trajectory rows" isPending={false} error={paged.error} />
      <div
        role="table"
        aria-label="Trajectories"
        aria-rowcount={total + 1}
        className={`grid-table trajectory-grid${datasetNames === null ? '' : ' with-dataset'}`}
      >
        <div role="rowgroup">
          <div role="row" aria-rowindex={1} className="grid-row grid-head">
            <span role="columnheader">ID</span>
            {datasetNames !== null && <span role="columnheader">Dataset</span>}
            <span role="columnheader">Benchmark</span>
            <span role="columnheader">Domain</span>
            <span role="columnheader">Task</span>
            <span role="columnheader">Model</span>
            <span role="columnheader" className="num" title={STEPS_TITLE}>
              Steps
            </span>
            <span role="columnheader" className="num" title={TRANSITIONS_TITLE}>
              Transitions
            </span>
            <span role="columnheader">Outcome</span>
          </div>
        </div>
        <div
          ref={scrollRef}
          role="rowgroup"
          className="grid-scroll"
          data-testid="trajectory-scroll"
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const row = paged.rowAt(item.index);
              return (
                <div
                  key={item.key}
                  className="virtual-row"
                  style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                >
                  {row ? (
                    <TrajectoryRow row={row} index={item.index} datasetNames={datasetNames} />
                  ) : (
                    <div
                      role="row"
                      aria-rowindex={item.index + 2}
                      aria-busy="true"
                      className="grid-row"
                    >
                      <span role="cell" className="muted">
                        Loading…
                      </span>
                    </div>
                  )}
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </>
  );
}
