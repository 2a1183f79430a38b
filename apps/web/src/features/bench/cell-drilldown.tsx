import { scoreKey, type CellItem, type ScoreSelector } from '@terrarium/schema';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { formatCount, formatScore100 } from '../../app/format';
import { QueryStatus } from '../../app/query-status';
import type { BenchCell } from '../../app/url-state';
import { formatLatency } from '../compare/format-run';
import { stepAfter, type ReplayCommand } from '../replay/replay-keys';
import { useReplayKeyboard } from '../replay/use-replay-keyboard';
import { MACRO_TASK, OVERALL_TASK } from './leaderboard';
import { ItemDetail } from './item-detail';
import { itemTrajectoryName, shortName } from './item-trajectory-name';
import { useCellItems } from './use-cell-items';

const ROW_HEIGHT = 30;

function ItemRow({
  item,
  index,
  selected,
  showTask,
  onSelect,
}: {
  item: CellItem;
  index: number;
  selected: boolean;
  showTask: boolean;
  onSelect(): void;
}) {
  const source = itemTrajectoryName(item);
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      className={`grid-row drill-row grid-row-link${showTask ? '' : ' one-task'}${selected ? ' row-selected' : ''}`}
      data-testid="cell-item"
      data-item={item.itemId}
      data-index={index}
      onClick={onSelect}
    >
      <span role="cell" className="num muted">
        {index + 1}
      </span>
      {showTask && (
        <span role="cell" className="cell-ellipsis" title={item.task}>
          {item.task}
        </span>
      )}
      <span
        role="cell"
        className="mono cell-ellipsis"
        data-testid="cell-item-trajectory"
        title={
          source === null
            ? 'Imported from a bench file: it names no trajectory'
            : source.detail === null
              ? source.name
              : `${source.name}\n${source.detail}`
        }
      >
        {source === null ? <span className="muted">imported</span> : shortName(source.name)}
      </span>
      <span role="cell" className="num">
        {item.turnIndex + 1}/{item.totalTurns}
      </span>
      <span role="cell" className="mono cell-ellipsis" title={item.action}>
        {item.action}
      </span>
      <span role="cell" className="num mono" data-testid="cell-item-score">
        {item.error !== null ? 'error' : formatScore100(item.value)}
      </span>
      <span role="cell" className="num muted">
        {formatLatency(item.latencyMs)}
      </span>
    </div>
  );
}

/**
 * The predictions behind one cell, worst first: a virtualized list (j/k or arrows move through it)
 * and the selected prediction beside the real observation. The selected item lives in the URL.
 */
export function CellDrilldown({
  runId,
  cell,
  score,
  itemId,
  onSelectItem,
  onClose,
}: {
  runId: string;
  cell: BenchCell;
  score: ScoreSelector;
  itemId: string | null;
  onSelectItem(itemId: string): void;
  onClose(): void;
}) {
  // A task's cell holds that task's items only: its column would repeat one value and take the
  // room the action needs.
  const showTask = cell.task === OVERALL_TASK || cell.task === MACRO_TASK;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [total, setTotal] = useState(0);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
    // Rows are painted on the first render, before the scroll box is measured.
    initialRect: { width: 0, height: 12 * ROW_HEIGHT },
  });
  const visible = virtualizer.getVirtualItems();
  const [selectedIndex, setSelectedIndex] = useState<number | null>(null);
  const items = useCellItems(
    runId,
    cell,
    score,
    visible[0]?.index ?? 0,
    visible.at(-1)?.index ?? -1,
    selectedIndex,
  );
  const loadedTotal = items.total;
  useEffect(() => {
    if (loadedTotal !== null) setTotal(loadedTotal);
  }, [loadedTotal]);

  // A deep link names the item: find where it sits once its page is loaded.
  const linkedIndex = itemId === null ? null : items.indexOf(itemId);
  const index = selectedIndex ?? linkedIndex;
  const selected = index === null ? undefined : items.rowAt(index);
  const selectedId = selected?.itemId;
  useEffect(() => {
    if (selectedId !== undefined && selectedId !== itemId) onSelectItem(selectedId);
  }, [selectedId, itemId, onSelectItem]);

  const latestIndex = useRef(index);
  useLayoutEffect(() => {
    latestIndex.current = index;
  }, [index]);
  const select = (target: number) => {
    latestIndex.current = target;
    setSelectedIndex(target);
    virtualizer.scrollToIndex(target, { align: 'auto' });
  };
  useReplayKeyboard((command: ReplayCommand) => {
    if (command === 'toggle-play' || total === 0) return;
    const from = latestIndex.current;
    select(from === null ? 0 : stepAfter(command, from, total));
  });

  return (
    <section
      className="drilldown"
      data-testid="drilldown"
      aria-label={`Items of ${cell.sim} on ${cell.task}`}
    >
      <header className="drilldown-header">
        <h2>
          <span className="mono">{cell.sim}</span> on <span className="mono">{cell.task}</span>
        </h2>
        <span className="muted">
          {loadedTotal === null ? '' : `${formatCount(loadedTotal)} items`} · {scoreKey(score)} ·
          worst first
        </span>
        <span className="key-hint muted">j/k item · g/G first/last</span>
        <button type="button" className="spacer-left" onClick={onClose}>
          Close
        </button>
      </header>
      <QueryStatus label="the cell's items" isPending={items.isPending} error={items.error} />
      <div className="drilldown-body">
        <div
          role="table"
          aria-label="Cell items"
          aria-rowcount={total + 1}
          className="grid-table drill-table"
        >
          <div role="rowgroup">
            <div
              role="row"
              aria-rowindex={1}
              className={`grid-row drill-row grid-head${showTask ? '' : ' one-task'}`}
            >
              <span role="columnheader" className="num">
                #
              </span>
              {showTask && <span role="columnheader">Task</span>}
              <span role="columnheader" title="The trajectory the item was taken from">
                Trajectory
              </span>
              <span role="columnheader" className="num">
                Turn
              </span>
              <span role="columnheader">Action</span>
              <span role="columnheader" className="num">
                Score
              </span>
              <span role="columnheader" className="num">
                Latency
              </span>
            </div>
          </div>
          <div ref={scrollRef} role="rowgroup" className="grid-scroll" data-testid="cell-items">
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {visible.map((row) => {
                const item = items.rowAt(row.index);
                return (
                  <div
                    key={row.key}
                    className="virtual-row"
                    style={{ transform: `translateY(${row.start}px)`, height: ROW_HEIGHT }}
                  >
                    {item ? (
                      <ItemRow
                        item={item}
                        index={row.index}
                        selected={row.index === index}
                        showTask={showTask}
                        onSelect={() => select(row.index)}
                      />
                    ) : (
                      <div
                        role="row"
                        aria-rowindex={row.index + 2}
                        aria-busy="true"
                        className={`grid-row drill-row${showTask ? '' : ' one-task'}`}
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
        {selected ? (
          <ItemDetail key={selected.itemId} item={selected} runId={runId} />
        ) : (
          <p className="muted drilldown-empty">
            Select an item (click, or j/k) to see it against the real observation.
          </p>
        )}
      </div>
    </section>
  );
}
