import { Fragment, useMemo } from 'react';
import { LineBlocks } from './line-blocks';
import { firstMarkedLine, MarkedText } from './marked-text';
import { VIRTUALIZE_ABOVE_LINES, VirtualLines } from './virtual-lines';

/** Nothing to mark. */
const NO_MARKS: readonly string[] = [];

/**
 * Preformatted text, laid out a block of lines at a time as it comes into sight; beyond 2,000
 * lines only the visible lines are rendered.
 */
export function PlainText({
  content,
  className,
  marks = NO_MARKS,
}: {
  content: string;
  className?: string;
  /** Words a search matched, marked where they occur. */
  marks?: readonly string[];
}) {
  const lines = useMemo(() => content.split('\n'), [content]);
  const markedLine = useMemo(
    () => (lines.length > VIRTUALIZE_ABOVE_LINES ? firstMarkedLine(lines, marks) : null),
    [lines, marks],
  );
  const classes = `plain-text ${className ?? ''}`;
  if (lines.length > VIRTUALIZE_ABOVE_LINES) {
    return (
      <VirtualLines
        className={classes}
        count={lines.length}
        markedLine={markedLine}
        renderLine={(index) => <MarkedText text={lines[index] ?? ''} words={marks} />}
      />
    );
  }
  return (
    <LineBlocks
      className={classes}
      lineCount={lines.length}
      renderLines={(start, end) =>
        marks.length === 0
          ? lines.slice(start, end).join('\n')
          : lines.slice(start, end).map((line, offset) => (
              <Fragment key={start + offset}>
                {offset > 0 && '\n'}
                <MarkedText text={line} words={marks} />
              </Fragment>
            ))
      }
    />
  );
}
