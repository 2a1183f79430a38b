import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, type ReactNode } from 'react';

/** Above this many lines a text view renders only the lines in sight. */
export const VIRTUALIZE_ABOVE_LINES = 2000;

const LINE_HEIGHT = 18;
const INITIAL_VISIBLE_LINES = 40;

/** A scrolling monospace view that keeps only the visible lines (plus overscan) in the DOM. */
export function VirtualLines({
  count,
  renderLine,
  className,
}: {
  count: number;
  renderLine(index: number): ReactNode;
  className?: string;
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
  return (
    <div ref={scrollRef} className={`virtual-lines ${className ?? ''}`} data-virtualized="true">
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
