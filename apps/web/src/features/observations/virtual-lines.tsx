import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type ReactNode } from 'react';

/** Above this many lines a text view renders only the lines in sight. */
export const VIRTUALIZE_ABOVE_LINES = 2000;

const LINE_HEIGHT = 18;
const INITIAL_VISIBLE_LINES = 40;

/** A scrolling monospace view that keeps only the visible lines (plus overscan) in the DOM. */
export function VirtualLines({
  count,
  renderLine,
  className,
  markedLine = null,
}: {
  count: number;
  renderLine(index: number): ReactNode;
  className?: string;
  /** The first line holding a searched word: the view opens scrolled to it (else at the top). */
  markedLine?: number | null;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => LINE_HEIGHT,
    overscan: 30,
    // Lines are painted on the first render, before the scroll box is measured.
    initialRect: { width: 0, height: INITIAL_VISIBLE_LINES * LINE_HEIGHT },
  });
  useEffect(() => {
    if (markedLine !== null) virtualizer.scrollToIndex(markedLine, { align: 'center' });
  }, [virtualizer, markedLine]);
  return (
    <div
      ref={scrollRef}
      className={`virtual-lines ${className ?? ''}`}
      data-virtualized="true"
      // Where a page scrolls to show the marks: the first may not be rendered yet.
      data-marked={markedLine === null ? undefined : 'true'}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative', minWidth: '100%' }}>
        {virtualizer.getVirtualItems().map((item) => (
          <div
            key={item.key}
            className="virtual-line"
            style={{ transform: `translateY(${item.start}px)`, height: LINE_HEIGHT }}
          >
            <span className="line-number" aria-hidden="true">
              {item.index + 1}
            </span>
            {renderLine(item.index)}
          </div>
        ))}
      </div>
    </div>
  );
}
