import { useMemo } from 'react';
import { LineBlocks } from './line-blocks';
import { VIRTUALIZE_ABOVE_LINES, VirtualLines } from './virtual-lines';

/**
 * Preformatted text, laid out a block of lines at a time as it comes into sight; beyond 2,000
 * lines only the visible lines are rendered.
 */
export function PlainText({ content, className }: { content: string; className?: string }) {
  const lines = useMemo(() => content.split('\n'), [content]);
  const classes = `plain-text ${className ?? ''}`;
  if (lines.length > VIRTUALIZE_ABOVE_LINES) {
    return (
      <VirtualLines className={classes} count={lines.length} renderLine={(index) => lines[index]} />
    );
  }
  return (
    <LineBlocks
      className={classes}
      lineCount={lines.length}
      renderLines={(start, end) => lines.slice(start, end).join('\n')}
    />
  );
}
