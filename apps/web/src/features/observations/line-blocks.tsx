import type { ReactNode } from 'react';

/**
 * Lines per block of a long preformatted text. Each block skips layout while it is out of sight
 * (`content-visibility: auto`), so stepping to a 20 KB observation lays out the screenful shown,
 * not all of it; unlike rendering only the lines in sight, the whole text stays in the DOM, for
 * find-in-page, selection and screen readers, and long lines still wrap where the view wraps them.
 */
export const LINES_PER_BLOCK = 40;

/** One line's height at the 12 px monospace of `pre`: the size a block is assumed to have until laid out. */
const LINE_HEIGHT_PX = 15;

/**
 * A `pre` of `lineCount` lines in blocks of LINES_PER_BLOCK; `renderLines(start, end)` renders lines
 * [start, end) joined by newlines. Its text is exactly the lines joined by newlines.
 */
export function LineBlocks({
  lineCount,
  renderLines,
  className,
}: {
  lineCount: number;
  renderLines(start: number, end: number): ReactNode;
  className: string;
}) {
  const blocks: ReactNode[] = [];
  for (let start = 0; start < lineCount; start += LINES_PER_BLOCK) {
    const end = Math.min(lineCount, start + LINES_PER_BLOCK);
    blocks.push(
      <span
        key={start}
        className="line-block"
        // `auto`: once a block has been laid out, its real (wrapped) height is kept for it.
        style={{ containIntrinsicBlockSize: `auto ${(end - start) * LINE_HEIGHT_PX}px` }}
      >
        {renderLines(start, end)}
        {end < lineCount && '\n'}
      </span>,
    );
  }
  return <pre className={className}>{blocks}</pre>;
}
